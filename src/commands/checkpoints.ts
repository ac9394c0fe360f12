import {statSync} from 'node:fs';
import path from 'node:path';
import type {Writable} from 'node:stream';
import {diskSpace} from '../checkpoints/disk.js';
import {buildIndex} from '../checkpoints/retention.js';
import {scanRunDir} from '../checkpoints/scan.js';
import type {Settings} from '../config/schema.js';
import {UsageError} from '../core/errors.js';
import type {CheckpointIndex} from '../core/types.js';
import {checkpointsJson, formatCheckpoints} from './checkpoints-format.js';
import {versioned} from '../format/json-version.js';

/** A RUN_DIR argument that must exist: a usage error (exit 2) naming it otherwise. */
export function existingRunDir(runDir: string): string {
	let isDirectory = false;
	try {
		isDirectory = statSync(runDir).isDirectory();
	} catch {
		throw new UsageError(`RUN_DIR ${runDir}: no such directory`);
	}
	if (!isDirectory) throw new UsageError(`RUN_DIR ${runDir}: not a directory`);
	return path.resolve(runDir);
}

export async function loadCheckpointIndex(
	runDir: string,
	keep: number | null,
	now = Date.now(),
): Promise<CheckpointIndex> {
	const [scan, disk] = await Promise.all([scanRunDir(runDir), diskSpace(runDir)]);
	return buildIndex(scan, {keep, now, disk});
}

/** `traintop checkpoints [RUN_DIR] [--json] [--keep N]`: exit 0, also when there are none yet. */
export async function runCheckpointsCommand(o: {
	runDir: string;
	settings: Settings;
	json: boolean;
	stdout: Writable;
}): Promise<number> {
	const runDir = existingRunDir(o.runDir);
	const now = Date.now();
	const index = await loadCheckpointIndex(runDir, o.settings.keep, now);
	o.stdout.write(
		o.json ? `${JSON.stringify(versioned(checkpointsJson(index)), null, 2)}\n` : `${formatCheckpoints(index, now)}\n`,
	);
	return 0;
}
