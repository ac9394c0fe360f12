import path from 'node:path';
import type {z} from 'zod';
import {errorMessage, UsageError} from '../core/errors.js';
import {checkNesting, readConfigText} from './config-text.js';
import {parseDecimal, PLAIN_DECIMAL_WORDS} from './decimal.js';
import {didYouMean} from './did-you-mean.js';
import {flagName, OPTIONS} from './options.js';
import {redactUrl} from '../notify/redact-url.js';
import {
	DEFAULT_SETTINGS,
	settingsInputSchema,
	settingsShape,
	type SettingKey,
	type Settings,
	type SettingsInput,
} from './schema.js';

/** Where a setting's value came from, so an error can name the flag or the file and key. */
type Origin = {readonly kind: 'flag'} | {readonly kind: 'file'; readonly path: string};

function describe(key: string, origin: Origin): string {
	return origin.kind === 'flag' ? flagName(key) : `config file ${origin.path}: key "${key}"`;
}

function show(value: unknown): string {
	if (typeof value === 'string') return `'${value}'`;
	// JSON.stringify says "null" for Infinity (a config file's 1e400): the number's own words instead.
	return typeof value === 'number' && !Number.isFinite(value) ? String(value) : JSON.stringify(value);
}

function unknownKeyMessage(file: string, key: string): string {
	const known = Object.keys(settingsShape);
	return `config file ${file}: unknown key "${key}"${didYouMean(key, known)}; known keys: ${known.join(', ')}`;
}

/** `typed`: a number flag's text as the user typed it, shown in a range error instead of the parsed number. */
function validate(input: unknown, origin: Origin, typed: Readonly<Record<string, string>> = {}): SettingsInput {
	const result = settingsInputSchema.safeParse(input);
	if (result.success) return result.data;
	const issue = result.error.issues[0] as z.core.$ZodIssue;
	if (issue.code === 'unrecognized_keys' && origin.kind === 'file') {
		throw new UsageError(unknownKeyMessage(origin.path, issue.keys[0] ?? ''));
	}
	const key = String(issue.path[0] ?? '');
	const value = (input as Record<string, unknown>)[key];
	// A webhook's URL is a secret even when it is wrong (Slack's token is its path): only where it points is said.
	const got = key === 'webhook' && typeof value === 'string' ? show(redactUrl(value)) : (typed[key] ?? show(value));
	throw new UsageError(`${describe(key, origin)} ${issue.message} (got ${got})`);
}

/** 1-based line and column of a character offset, for JSON syntax errors. */
function lineAndColumn(text: string, offset: number): string {
	const before = text.slice(0, offset).split('\n');
	return `line ${before.length}, column ${before.at(-1)!.length + 1}`;
}

/** Read and validate a JSON config file; every failure names the file and the rule. */
export async function loadConfigFile(file: string): Promise<SettingsInput> {
	return parseConfigFile(file, (await readConfigText(file, 'config file', {missingIsNone: false})) ?? '');
}

/** The file's JSON, validated: one object of known settings. */
function parseConfigFile(file: string, text: string): SettingsInput {
	checkNesting(text, file, 'config file');
	let parsed: unknown;
	try {
		// A UTF-8 byte-order mark (Notepad and other Windows editors write one) is not part of the JSON.
		parsed = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text);
	} catch (error) {
		const message = errorMessage(error);
		const at = /at position (\d+)/.exec(message);
		const where = at ? ` at ${lineAndColumn(text, Number(at[1]))}` : '';
		throw new UsageError(`config file ${file} is not valid JSON${where}: ${message}`);
	}
	if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
		throw new UsageError(`config file ${file} must hold one JSON object of settings, e.g. {"ramThreshold": 80}`);
	}
	return validate(parsed, {kind: 'file', path: file});
}

/**
 * Turn meow's raw flag values into settings. Numeric flags arrive as strings so that "abc" can be
 * reported as written rather than as NaN.
 */
export function settingsFromFlags(flags: Readonly<Record<string, unknown>>): SettingsInput {
	const input: Record<string, unknown> = {};
	const typed: Record<string, string> = {};
	for (const option of OPTIONS) {
		if (!option.setting) continue;
		const raw = flags[option.name];
		if (raw === undefined) continue;
		if (option.kind === 'number') {
			const value = parseDecimal(String(raw));
			if (value === null) {
				throw new UsageError(`${flagName(option.name)} needs ${PLAIN_DECIMAL_WORDS} (got ${show(String(raw))})`);
			}
			input[option.setting] = value;
			typed[option.setting] = String(raw).trim();
		} else {
			input[option.setting] = raw;
		}
	}
	return validate(input, {kind: 'flag'}, typed);
}

/** Defaults, then the config file, then flags (flags win); then rules that span two settings. */
export function resolveSettings(
	fromFile: SettingsInput,
	fromFlags: SettingsInput,
	configPath: string | null,
): Settings {
	const settings: Settings = {...DEFAULT_SETTINGS, ...fromFile, ...fromFlags};
	if (settings.logInterval < settings.interval) {
		const where = (key: SettingKey) =>
			key in fromFlags || configPath === null ? flagName(key) : `config file ${configPath}: key "${key}"`;
		throw new UsageError(
			`${where('logInterval')} (${settings.logInterval} s) must be at least ${where('interval')} (${settings.interval} s): a log record covers one or more samples`,
		);
	}
	return settings;
}

/**
 * The config file used when neither --config nor $TRAINTOP_CONFIG names one, as the XDG Base Directory spec places
 * it: $XDG_CONFIG_HOME/traintop/config.json, else $HOME/.config/traintop/config.json. A relative $XDG_CONFIG_HOME is
 * ignored (the spec calls it invalid); null when there is no home either.
 */
export function defaultConfigPath(env: NodeJS.ProcessEnv): string | null {
	const xdg = env.XDG_CONFIG_HOME;
	const base = xdg && path.isAbsolute(xdg) ? xdg : env.HOME ? path.join(env.HOME, '.config') : null;
	return base === null ? null : path.join(base, 'traintop', 'config.json');
}

/** The config file named (--config, else $TRAINTOP_CONFIG), else the default one if it exists; null: no file. */
async function findConfigFile(
	named: string | null,
	env: NodeJS.ProcessEnv,
): Promise<{readonly path: string; readonly settings: SettingsInput} | null> {
	if (named) return {path: named, settings: await loadConfigFile(named)};
	const file = defaultConfigPath(env);
	const text = file === null ? null : await readConfigText(file, 'config file', {missingIsNone: true});
	return file === null || text === null ? null : {path: file, settings: parseConfigFile(file, text)};
}

/**
 * The whole chain: `--config FILE`, else $TRAINTOP_CONFIG, else the default file when it exists (a missing one is
 * silent: most users have none). `given` is what the user set (file, then flags), apart from the defaults: a
 * cluster.yaml's reserve factors give way to a GPU threshold the user set.
 */
export async function loadSettings(
	flags: Readonly<Record<string, unknown>>,
	env: NodeJS.ProcessEnv = process.env,
): Promise<{settings: Settings; configPath: string | null; given: SettingsInput}> {
	const configFlag = flags.config;
	if (configFlag === '') throw new UsageError('--config needs a file path');
	const named = typeof configFlag === 'string' ? configFlag : env.TRAINTOP_CONFIG || null;
	const fromFlags = settingsFromFlags(flags);
	const file = await findConfigFile(named, env);
	const configPath = file?.path ?? null;
	const fromFile = file?.settings ?? {};
	return {settings: resolveSettings(fromFile, fromFlags, configPath), configPath, given: {...fromFile, ...fromFlags}};
}
