import path from 'node:path';
import {DEFAULT_LOG_FILE_NAME, type Settings} from '../config/schema.js';

/** Where the memory log goes: --log-file, else RUN_DIR (or .)/traintop-memory.jsonl; null with --no-log. */
export function logPathFrom(settings: Settings, runDir: string | null): string | null {
	if (!settings.log) return null;
	return settings.logFile ?? path.join(runDir ?? '.', DEFAULT_LOG_FILE_NAME);
}
