import {existsSync, readdirSync, readFileSync, statSync} from 'node:fs';
import path from 'node:path';
import {expect, test} from 'vitest';
import {OPTIONS} from '../src/config/options.js';

// The README is what a newcomer reads in five minutes; the user guide and the architecture live in docs/. These
// checks keep the README short, its first commands runnable, every option documented, and every link whole.
const root = path.join(import.meta.dirname, '..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const docs = readdirSync(path.join(root, 'docs'))
	.filter(name => name.endsWith('.md'))
	.map(name => `docs/${name}`);

test('the README starts with the two set-up commands, the test one being npm test', () => {
	const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
	const commands = firstBlock.split('\n').filter(line => line.trim() !== '');
	expect(commands).toHaveLength(2);
	expect(commands[0]).toMatch(/^npm install && npx traintop/);
	expect(commands[1]).toMatch(/^npm install && npm test/);
	expect(readme.indexOf('```sh')).toBeLessThan(200);
});

test('the README stays a five-minute read: at most 250 lines', () => {
	expect(readme.split('\n').length).toBeLessThanOrEqual(250);
});

test('the options table has a row for every option, with its config key', () => {
	const page = readFileSync(path.join(root, 'docs', 'configuration.md'), 'utf8');
	for (const option of OPTIONS) {
		if (option.name === 'help' || option.name === 'version') continue;
		const row = page.split('\n').find(line => line.startsWith(`| \`${option.usage}\``));
		expect(row, `docs/configuration.md row for ${option.usage}`).toBeDefined();
		if (option.setting) expect(row).toContain(`\`${option.setting}\``);
	}
});

/** The anchors GitHub gives a Markdown file: one per heading (its slug, `-1`, `-2` … on repeats) and each `<a id>`. */
function anchorsOf(markdown: string): Set<string> {
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	for (const line of withoutFences(markdown).split('\n')) {
		const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
		if (heading?.[1] !== undefined) {
			const slug = githubSlug(heading[1]);
			const count = seen.get(slug) ?? 0;
			seen.set(slug, count + 1);
			anchors.add(count === 0 ? slug : `${slug}-${count}`);
		}
		for (const match of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) if (match[1]) anchors.add(match[1]);
	}
	return anchors;
}

/** GitHub's rule: lower case, punctuation dropped except '-' and '_', each space a '-'. */
function githubSlug(heading: string): string {
	return heading
		.toLowerCase()
		.replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
		.replace(/ /g, '-');
}

/** Code blocks hold shell comments (`# …`) and example text, neither headings nor links. */
function withoutFences(markdown: string): string {
	return markdown.replace(/^```[\s\S]*?^```/gm, '');
}

test('the slug rule matches what GitHub makes of this project’s headings', () => {
	expect(githubSlug('Post-mortems: `--analyze`')).toBe('post-mortems---analyze');
	expect(githubSlug('Jobs, ranks and their signal handlers')).toBe('jobs-ranks-and-their-signal-handlers');
	expect(githubSlug('cluster.yaml')).toBe('clusteryaml');
	expect([...anchorsOf('# A\n## A\n```sh\n# not a heading\n```\n<a id="x"></a>')]).toEqual(['a', 'a-1', 'x']);
});

test('every relative link in the README and docs/ points at a file that exists, and at a heading that exists', () => {
	const broken: string[] = [];
	let checked = 0;
	for (const file of ['README.md', ...docs]) {
		const text = withoutFences(readFileSync(path.join(root, file), 'utf8'));
		for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
			const link = match[1] ?? '';
			if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto:
			checked++;
			const [target = '', anchor] = link.split('#');
			const resolved = target === '' ? path.join(root, file) : path.join(root, path.dirname(file), target);
			if (!existsSync(resolved)) {
				broken.push(`${file}: ${link} (no such file)`);
				continue;
			}
			if (anchor === undefined || !resolved.endsWith('.md') || statSync(resolved).isDirectory()) continue;
			if (!anchorsOf(readFileSync(resolved, 'utf8')).has(anchor)) broken.push(`${file}: ${link} (no such heading)`);
		}
	}
	expect(broken).toEqual([]);
	expect(checked).toBeGreaterThan(20);
});

test('the docs describe traintop as it is: no issue numbers, no change log', () => {
	for (const file of ['README.md', ...docs]) {
		const text = readFileSync(path.join(root, file), 'utf8');
		expect(text, file).not.toMatch(/\bissues? \d+|changed in|added in|before this work|the seed tool/i);
	}
});

test('every page of docs/ is reachable from the README', () => {
	const linked = new Set(
		[...withoutFences(readme).matchAll(/\]\((docs\/[^)#\s]+)/g)].map(match => match[1]).filter(Boolean),
	);
	expect(docs.filter(page => !linked.has(page))).toEqual([]);
});
