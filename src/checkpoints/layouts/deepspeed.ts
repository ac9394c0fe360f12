// DeepSpeed: global_step<N>/ (per-rank shards) beside a `latest` file holding the tag of the last finished save.
// Rank 0 writes `latest` after its own files, so the tag it names and everything older is complete; a global_step
// directory newer than that is a save still being written (or one that was cut off). Nothing is ever deleted.
// Source: deepspeedai/DeepSpeed deepspeed/runtime/engine.py: DeepSpeedEngine.save_checkpoint (_save_checkpoint and
// _save_zero_checkpoint per rank, checkpoint_engine.commit(tag), then `latest` written by rank 0 when save_latest).

import path from 'node:path';
import {
	found,
	intOf,
	nameLike,
	NOTHING,
	relName,
	type Found,
	type Layout,
	type LayoutIO,
	type LayoutResult,
	type ScanDir,
} from './layout.js';
import {keepAll} from '../rules.js';

const STEP_DIR = /^global_step(\d+)$/;
const LATEST = 'latest';

export const deepspeedLayout: Layout = {
	name: 'deepspeed',
	title: 'DeepSpeed',
	async find(dir: ScanDir, io: LayoutIO): Promise<LayoutResult> {
		const dirs = dir.entries.filter(entry => entry.type === 'dir' && STEP_DIR.test(entry.name));
		if (dirs.length === 0) return NOTHING;
		const warnings: string[] = [];
		const latestEntry = dir.entries.find(entry => entry.name === LATEST && entry.type === 'file');
		let latestStep: number | null = null;
		let unknown: string | null = null;
		if (latestEntry === undefined) {
			unknown = `no \`${LATEST}\` file beside it: cannot tell whether the save finished`;
		} else {
			const tag = (await io.readText(path.join(dir.path, LATEST), 1024))?.trim() ?? null;
			if (tag === null) warnings.push(`${relName(dir, LATEST)}: cannot be read`);
			latestStep = intOf(tag === null ? undefined : STEP_DIR.exec(tag)?.[1]);
			if (latestStep === null) {
				// The tag is quoted only when it looks like one (a short name): a file's other contents never go into a message.
				const named = tag === null ? 'nothing readable' : nameLike(tag) ? `"${tag}"` : 'something else';
				unknown = `\`${LATEST}\` names ${named}, not a global_step<N> tag`;
			}
		}
		const result: Found[] = dirs.map(entry => {
			const step = intOf(STEP_DIR.exec(entry.name)?.[1]);
			if (latestStep === null || step === null)
				return found(entry, {step, warnings: unknown === null ? [] : [unknown]});
			if (step <= latestStep) return found(entry, {step});
			const warnings = [`newer than \`${LATEST}\` (global_step${latestStep}): still being written or cut off`];
			return found(entry, {step, status: 'partial', warnings});
		});
		return {found: result, warnings, declared: null};
	},
	// DeepSpeedEngine.save_checkpoint (deepspeed/runtime/engine.py) writes a tag and `latest`; it deletes nothing.
	retention: keepAll('DeepSpeed never deletes (save_checkpoint keeps every tag)'),
};
