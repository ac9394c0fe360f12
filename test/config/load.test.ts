import {mkdir, mkdtemp, writeFile, chmod, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {
	defaultConfigPath,
	loadConfigFile,
	loadSettings,
	resolveSettings,
	settingsFromFlags,
} from '../../src/config/load.js';
import {DEFAULT_SETTINGS} from '../../src/config/schema.js';
import {ranksFromFlag, selectorFromFlags} from '../../src/config/selection.js';
import {UsageError} from '../../src/core/errors.js';

let dir: string;
beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-config-'));
});
afterAll(async () => {
	await rm(dir, {recursive: true, force: true});
});

async function configFile(name: string, text: string): Promise<string> {
	const file = path.join(dir, name);
	await writeFile(file, text);
	return file;
}

describe('defaults', () => {
	test("are the seed tool's: RAM 85, GPU 90, swap 50, a record every 30 s, sampling every 1 s", async () => {
		const {settings} = await loadSettings({}, {});
		expect(settings).toMatchObject({
			ramThreshold: 85,
			gpuThreshold: 90,
			swapThreshold: 50,
			logInterval: 30,
			interval: 1,
		});
		expect(settings).toEqual(DEFAULT_SETTINGS);
	});
});

describe('flags', () => {
	test('numbers are parsed and validated', () => {
		expect(settingsFromFlags({ramThreshold: '80', interval: '0.5', log: false})).toEqual({
			ramThreshold: 80,
			interval: 0.5,
			log: false,
		});
	});

	test.each([
		[{ramThreshold: '120'}, '--ram-threshold must be at most 100 (a percentage) (got 120)'],
		[{gpuThreshold: '0'}, '--gpu-threshold must be above 0 (a percentage) (got 0)'],
		[{interval: '-1'}, '--interval must be at least 0.1 (seconds) (got -1)'],
		[{logInterval: 'abc'}, "--log-interval needs a plain decimal number such as 30 or 0.5 (got 'abc')"],
		[{swapThreshold: ''}, "--swap-threshold needs a plain decimal number such as 30 or 0.5 (got '')"],
		[{hysteresis: '60'}, '--hysteresis must be at most 50 (percentage points) (got 60)'],
		[{gpuProcessInterval: '-5'}, '--gpu-process-interval must be 0 (off) or more (seconds) (got -5)'],
	])('%o → "%s"', (flags, message) => {
		expect(() => settingsFromFlags(flags)).toThrow(new UsageError(message));
	});
});

describe('config file', () => {
	test('settings are read from JSON and flags win over them', async () => {
		const file = await configFile('ok.json', JSON.stringify({ramThreshold: 70, gpuThreshold: 95, log: false}));
		const {settings, configPath} = await loadSettings({config: file, ramThreshold: '75'}, {});
		expect(configPath).toBe(file);
		expect(settings).toMatchObject({ramThreshold: 75, gpuThreshold: 95, log: false, swapThreshold: 50});
	});

	test('$TRAINTOP_CONFIG is used when --config is absent', async () => {
		const file = await configFile('env.json', '{"swapThreshold": 20}');
		const {settings} = await loadSettings({}, {TRAINTOP_CONFIG: file});
		expect(settings.swapThreshold).toBe(20);
	});

	test('an out-of-range value names the file and key', async () => {
		const file = await configFile('big.json', '{"ramThreshold": 120}');
		await expect(loadConfigFile(file)).rejects.toThrow(
			`config file ${file}: key "ramThreshold" must be at most 100 (a percentage) (got 120)`,
		);
	});

	test('a value of the wrong type names the file, key and rule', async () => {
		const file = await configFile('type.json', '{"interval": "fast"}');
		await expect(loadConfigFile(file)).rejects.toThrow(
			`config file ${file}: key "interval" must be a number of seconds (got 'fast')`,
		);
	});

	test('an unknown key is refused with the nearest known key suggested', async () => {
		const file = await configFile('typo.json', '{"ramTreshold": 80}');
		await expect(loadConfigFile(file)).rejects.toThrow(
			new RegExp(
				`config file ${file}: unknown key "ramTreshold" \\(did you mean "ramThreshold"\\?\\); known keys: interval, `,
			),
		);
	});

	test('invalid JSON is refused with the line and column', async () => {
		const file = await configFile('broken.json', '{\n  "ramThreshold": 80\n  "gpuThreshold": 90\n}');
		await expect(loadConfigFile(file)).rejects.toThrow(
			new RegExp(`config file ${file} is not valid JSON at line 3, column 3`),
		);
	});

	test('a JSON value that is not an object is refused', async () => {
		const file = await configFile('array.json', '[1, 2]');
		await expect(loadConfigFile(file)).rejects.toThrow(`config file ${file} must hold one JSON object of settings`);
	});

	test('a missing or unreadable file is refused naming it', async () => {
		const missing = path.join(dir, 'nope.json');
		await expect(loadConfigFile(missing)).rejects.toThrow(`cannot read config file ${missing}: ENOENT`);
		await expect(loadConfigFile(dir)).rejects.toThrow(
			`cannot read config file ${dir}: a directory, not a regular file`,
		);
		if (process.getuid?.() !== 0) {
			const locked = await configFile('locked.json', '{}');
			await chmod(locked, 0o000);
			await expect(loadConfigFile(locked)).rejects.toThrow(`cannot read config file ${locked}: EACCES`);
		}
	});

	test('an empty --config is refused', async () => {
		await expect(loadSettings({config: ''}, {})).rejects.toThrow('--config needs a file path');
	});
});

describe('the default config file ($XDG_CONFIG_HOME/traintop/config.json, else ~/.config/traintop/config.json)', () => {
	/** A home with its own XDG config dir, and the default file written there (or not). */
	async function home(name: string, text: string | null): Promise<{home: string; xdg: string; file: string}> {
		const root = path.join(dir, name);
		const xdg = path.join(root, 'xdg');
		const file = path.join(xdg, 'traintop', 'config.json');
		await mkdir(path.dirname(file), {recursive: true});
		if (text !== null) await writeFile(file, text);
		return {home: root, xdg, file};
	}

	test('is where XDG puts it: $XDG_CONFIG_HOME, else $HOME/.config; a relative $XDG_CONFIG_HOME is ignored', () => {
		expect(defaultConfigPath({XDG_CONFIG_HOME: '/x/conf', HOME: '/home/u'})).toBe('/x/conf/traintop/config.json');
		expect(defaultConfigPath({HOME: '/home/u'})).toBe('/home/u/.config/traintop/config.json');
		expect(defaultConfigPath({XDG_CONFIG_HOME: '', HOME: '/home/u'})).toBe('/home/u/.config/traintop/config.json');
		expect(defaultConfigPath({XDG_CONFIG_HOME: 'conf', HOME: '/home/u'})).toBe('/home/u/.config/traintop/config.json');
		expect(defaultConfigPath({})).toBeNull();
	});

	test('its settings apply when no file is named, and flags win over them', async () => {
		const {xdg, file} = await home('xdg-read', '{"ramThreshold": 70, "logInterval": 60}');
		const {settings, configPath} = await loadSettings({logInterval: '45'}, {XDG_CONFIG_HOME: xdg});
		expect(configPath).toBe(file);
		expect(settings).toMatchObject({ramThreshold: 70, logInterval: 45});
	});

	test('~/.config/traintop/config.json when $XDG_CONFIG_HOME is not set', async () => {
		const root = path.join(dir, 'home-dot-config');
		await mkdir(path.join(root, '.config', 'traintop'), {recursive: true});
		await writeFile(path.join(root, '.config', 'traintop', 'config.json'), '{"swapThreshold": 33}');
		expect((await loadSettings({}, {HOME: root})).settings.swapThreshold).toBe(33);
	});

	test('$TRAINTOP_CONFIG and --config replace it: nothing of the default file is applied', async () => {
		const {xdg} = await home('xdg-below', '{"ramThreshold": 70, "gpuThreshold": 60}');
		const named = await configFile('named.json', '{"ramThreshold": 75}');
		const fromEnv = await loadSettings({}, {XDG_CONFIG_HOME: xdg, TRAINTOP_CONFIG: named});
		expect(fromEnv.configPath).toBe(named);
		expect(fromEnv.settings).toMatchObject({ramThreshold: 75, gpuThreshold: 90});
		const fromFlag = await loadSettings({config: named}, {XDG_CONFIG_HOME: xdg});
		expect(fromFlag.settings).toMatchObject({ramThreshold: 75, gpuThreshold: 90});
	});

	test('a missing one is silent: the defaults, no config path', async () => {
		const {xdg} = await home('xdg-none', null);
		expect(await loadSettings({}, {XDG_CONFIG_HOME: xdg})).toMatchObject({
			settings: DEFAULT_SETTINGS,
			configPath: null,
		});
		// Nor is a home whose .config is a file (ENOTDIR) a reason to refuse to start.
		const odd = path.join(dir, 'odd-home');
		await mkdir(odd, {recursive: true});
		await writeFile(path.join(odd, '.config'), 'not a directory');
		expect((await loadSettings({}, {HOME: odd})).configPath).toBeNull();
	});

	test('a bad one is refused naming the file and the key, as a named file is', async () => {
		const big = await home('xdg-big', '{"ramThreshold": 120}');
		await expect(loadSettings({}, {XDG_CONFIG_HOME: big.xdg})).rejects.toThrow(
			new UsageError(`config file ${big.file}: key "ramThreshold" must be at most 100 (a percentage) (got 120)`),
		);
		const typo = await home('xdg-typo', '{"ramTreshold": 80}');
		await expect(loadSettings({}, {XDG_CONFIG_HOME: typo.xdg})).rejects.toThrow(
			`config file ${typo.file}: unknown key "ramTreshold" (did you mean "ramThreshold"?)`,
		);
		const broken = await home('xdg-broken', '{"ramThreshold": 80,}');
		await expect(loadSettings({}, {XDG_CONFIG_HOME: broken.xdg})).rejects.toThrow(
			`config file ${broken.file} is not valid JSON at line 1, column 21`,
		);
		const rule = await home('xdg-rule', '{"logInterval": 2}');
		await expect(loadSettings({interval: '5'}, {XDG_CONFIG_HOME: rule.xdg})).rejects.toThrow(
			`config file ${rule.file}: key "logInterval" (2 s) must be at least --interval (5 s)`,
		);
	});

	test('one that is there but cannot be read is an error, not skipped', async () => {
		const {xdg, file} = await home('xdg-dir', null);
		await mkdir(file);
		await expect(loadSettings({}, {XDG_CONFIG_HOME: xdg})).rejects.toThrow(
			`cannot read config file ${file}: a directory, not a regular file`,
		);
		if (process.getuid?.() !== 0) {
			const locked = await home('xdg-locked', '{}');
			await chmod(locked.file, 0o000);
			await expect(loadSettings({}, {XDG_CONFIG_HOME: locked.xdg})).rejects.toThrow(
				`cannot read config file ${locked.file}: EACCES`,
			);
		}
	});
});

describe('signals and rank selection', () => {
	test('save and emergency signals accept SIGUSR2, USR2 or 12 and are stored by name', async () => {
		expect(settingsFromFlags({saveSignal: 'usr2', emergencySignal: '15'})).toEqual({
			saveSignal: 'SIGUSR2',
			emergencySignal: 'SIGTERM',
		});
		const file = await configFile('signals.json', '{"saveSignal": "SIGUSR2"}');
		expect((await loadSettings({config: file}, {})).settings.saveSignal).toBe('SIGUSR2');
		expect((await loadSettings({}, {})).settings).toMatchObject({
			saveSignal: 'SIGUSR1',
			emergencySignal: 'SIGTERM',
			readonly: false,
		});
	});

	test('an unknown signal name is refused naming the flag or key', async () => {
		expect(() => settingsFromFlags({saveSignal: 'SIGSAVE'})).toThrow(
			"--save-signal must be a signal name such as SIGUSR1, USR1 or 10 (got 'SIGSAVE')",
		);
		const file = await configFile('badsig.json', '{"emergencySignal": 99}');
		await expect(loadConfigFile(file)).rejects.toThrow(
			`config file ${file}: key "emergencySignal" must be a signal name`,
		);
	});

	test('--pid, --match and --rank', () => {
		expect(selectorFromFlags({})).toEqual({kind: 'env'});
		expect(selectorFromFlags({pid: '4242'})).toEqual({kind: 'pid', pid: 4242});
		expect(selectorFromFlags({match: 'train\\.py'})).toEqual({kind: 'match', pattern: /train\.py/});
		expect(() => selectorFromFlags({pid: '1'})).toThrow("--pid needs a process id greater than 1 (got '1')");
		expect(() => selectorFromFlags({pid: 'abc'})).toThrow("--pid needs a process id greater than 1 (got 'abc')");
		expect(() => selectorFromFlags({match: '(unclosed'})).toThrow(
			"--match '(unclosed' is not a valid regular expression",
		);
		expect(() => selectorFromFlags({pid: '5', match: 'x'})).toThrow('--pid and --match cannot be used together');
		expect(ranksFromFlag('0, 2,2,5')).toEqual([0, 2, 5]);
		expect(ranksFromFlag(undefined)).toBeUndefined();
		expect(() => ranksFromFlag('0,x')).toThrow(
			"--rank needs rank numbers separated by commas, e.g. --rank 0,2 (got '0,x')",
		);
	});
});

describe('rules across settings', () => {
	test('the log interval may not be shorter than the sampling interval', () => {
		expect(() => resolveSettings({}, {interval: 5, logInterval: 2}, null)).toThrow(
			'--log-interval (2 s) must be at least --interval (5 s)',
		);
		expect(() => resolveSettings({logInterval: 2}, {interval: 5}, '/etc/tt.json')).toThrow(
			'config file /etc/tt.json: key "logInterval" (2 s) must be at least --interval (5 s)',
		);
	});
});
