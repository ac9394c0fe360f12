import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {expect, test} from 'vitest';
import {loadConfigFile, settingsFromFlags} from '../../src/config/load.js';
import {DEFAULT_SETTINGS} from '../../src/config/schema.js';
import {UsageError} from '../../src/core/errors.js';

// The notification and exporter settings: each value checked with a message that names the flag or key and the rule,
// and a webhook's URL never echoed whole, even when it is wrong.

test('--listen: a port alone binds 127.0.0.1; HOST:PORT and [IPv6]:PORT as given; anything else is refused', () => {
	expect(settingsFromFlags({listen: '9101'}).listen).toEqual({host: '127.0.0.1', port: 9101});
	expect(settingsFromFlags({listen: ':0'}).listen).toEqual({host: '127.0.0.1', port: 0});
	expect(settingsFromFlags({listen: '0.0.0.0:9101'}).listen).toEqual({host: '0.0.0.0', port: 9101});
	expect(settingsFromFlags({listen: '[::1]:9101'}).listen).toEqual({host: '::1', port: 9101});
	expect(() => settingsFromFlags({listen: 'host:99999'})).toThrow(/--listen must be HOST:PORT or a port/);
	expect(() => settingsFromFlags({listen: 'a b:1'})).toThrow(UsageError);
	expect(DEFAULT_SETTINGS.listen).toBeNull();
});

test('--notify-events: a comma list of known names; an unknown one is named with the list', () => {
	expect(settingsFromFlags({notifyEvents: 'crit, job-hung'}).notifyEvents).toEqual(['crit', 'job-hung']);
	expect(() => settingsFromFlags({notifyEvents: 'crit,oom'})).toThrow(
		/--notify-events names "oom", which is not one of: crit, warn/,
	);
	expect(() => settingsFromFlags({notifyEvents: ' , '})).toThrow(/must name at least one/);
});

test('a wrong webhook URL is refused without saying its secret path', () => {
	const secret = 'T024BE7LD/B08C3/xoxb-SECRET';
	let message = '';
	try {
		settingsFromFlags({webhook: `ftp://hooks.slack.com/services/${secret}`});
	} catch (error) {
		message = (error as Error).message;
	}
	expect(message).toBe("--webhook must be an http:// or https:// URL (got 'ftp://hooks.slack.com/…')");
	expect(settingsFromFlags({webhook: 'https://hooks.slack.com/services/x'}).webhook).toBe(
		'https://hooks.slack.com/services/x',
	);
});

test('the config file: notifyEvents as a list, a webhook refused by key without its secret', async () => {
	const dir = await mkdtemp(path.join(tmpdir(), 'traintop-notify-config-'));
	try {
		const good = path.join(dir, 'good.json');
		await writeFile(good, JSON.stringify({notifyEvents: ['crit', 'overdue'], notifyCooldown: 60, listen: '9102'}));
		expect(await loadConfigFile(good)).toEqual({
			notifyEvents: ['crit', 'overdue'],
			notifyCooldown: 60,
			listen: {host: '127.0.0.1', port: 9102},
		});
		const bad = path.join(dir, 'bad.json');
		await writeFile(bad, JSON.stringify({webhook: 'hooks.slack.com/services/SECRET'}));
		await expect(loadConfigFile(bad)).rejects.toThrow(
			`config file ${bad}: key "webhook" must be an http:// or https:// URL (got 'the webhook URL')`,
		);
	} finally {
		await rm(dir, {recursive: true, force: true});
	}
});
