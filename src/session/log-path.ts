import path from 'node:path';
import {DEFAULT_LOG_FILE_NAME, type Settings} from '../config/schema.js';

/** Where the memory log goes: --log-file, else RUN_DIR (or .)/traintop-memory.jsonl; null with --no-log. */
export function logPathFrom(settings: Settings, runDir: string | null): string | null {
	if (!settings.log) return null;
	return settings.logFile ?? path.join(runDir ?? '.', DEFAULT_LOG_FILE_NAME);
}

/**
 * One memory log per node when traintop watches many: `traintop-memory.<host>.jsonl` beside where the one log would
 * go (`--log-file runs/x.jsonl` gives `runs/x.<host>.jsonl`), so `--analyze` reads them as a series per host.
 */
export function hostLogPathFrom(settings: Settings, runDir: string | null, host: string): string | null {
	return withHost(logPathFrom(settings, runDir), host.replace(/[^A-Za-z0-9._-]/g, '_'));
}

/** The same, with `<host>` where each node's name goes: what the views say the logs are called. */
export function hostLogPattern(settings: Settings, runDir: string | null): string | null {
	return withHost(logPathFrom(settings, runDir), '<host>');
}

function withHost(single: string | null, host: string): string | null {
	if (single === null) return null;
	const ext = path.extname(single);
	return `${single.slice(0, single.length - ext.length)}.${host}${ext}`;
}
