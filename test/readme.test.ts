import {readFileSync} from 'node:fs';
import path from 'node:path';
import {expect, test} from 'vitest';
import {OPTIONS} from '../src/config/options.js';

const readme = readFileSync(path.join(import.meta.dirname, '..', 'README.md'), 'utf8');

test('the README starts with the two set-up commands, the test one being npm test', () => {
	const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
	const commands = firstBlock.split('\n').filter(line => line.trim() !== '');
	expect(commands).toHaveLength(2);
	expect(commands[0]).toMatch(/^npm install && npx traintop/);
	expect(commands[1]).toMatch(/^npm install && npm test/);
	expect(readme.indexOf('```sh')).toBeLessThan(200);
});

test('the README options table has a row for every option, with its config key', () => {
	for (const option of OPTIONS) {
		if (option.name === 'help' || option.name === 'version') continue;
		const row = readme.split('\n').find(line => line.startsWith(`| \`${option.usage}\``));
		expect(row, `README row for ${option.usage}`).toBeDefined();
		if (option.setting) expect(row).toContain(`\`${option.setting}\``);
	}
});
