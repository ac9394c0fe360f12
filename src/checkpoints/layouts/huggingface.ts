// Hugging Face Trainer: <output_dir>/checkpoint-<global_step>/ with trainer_state.json written last (missing ⇒ the
// save was cut short), checkpoint-is-incomplete.txt while a JIT save runs, tmp-checkpoint-* staging dirs (some
// versions only; always partial). best_model_checkpoint in the newest trainer_state.json marks the best one.

import path from 'node:path';
import {
	found,
	intOf,
	isRecord,
	NOTHING,
	numberOf,
	type Entry,
	type Found,
	type Layout,
	type LayoutIO,
	type LayoutResult,
	type ScanDir,
} from './layout.js';
import {keepNewest} from '../rules.js';

const CHECKPOINT = /^checkpoint-(\d+)$/;
const STAGING = /^tmp-checkpoint-(.+)$/;
const STATE_FILE = 'trainer_state.json';
const SENTINEL = 'checkpoint-is-incomplete.txt';

interface TrainerState {
	readonly epoch: number | null;
	readonly globalStep: number | null;
	readonly loss: number | null;
	readonly best: string | null;
}

function parseState(value: unknown): TrainerState | string {
	if (!isRecord(value)) return 'expected a JSON object';
	let loss: number | null = null;
	if (Array.isArray(value.log_history)) {
		for (const record of value.log_history) if (isRecord(record)) loss = numberOf(record.loss) ?? loss;
	}
	const best = typeof value.best_model_checkpoint === 'string' ? value.best_model_checkpoint : null;
	return {epoch: numberOf(value.epoch), globalStep: numberOf(value.global_step), loss, best};
}

interface Candidate {
	readonly found: Found;
	readonly state: TrainerState | null;
}

async function checkpoint(entry: Entry, step: number | null, io: LayoutIO): Promise<Candidate> {
	const names = new Set((await io.list(entry.path))?.map(inner => inner.name) ?? []);
	const warnings: string[] = [];
	let status: Found['status'] = 'complete';
	let state: TrainerState | null = null;
	if (!names.has(STATE_FILE)) {
		status = 'partial';
		warnings.push(`no ${STATE_FILE} (written last): the save did not finish`);
	} else {
		const read = await io.readJson(path.join(entry.path, STATE_FILE));
		const parsed = read.status === 'ok' ? parseState(read.value) : read.status === 'error' ? read.error : 'missing';
		if (typeof parsed === 'string') warnings.push(`${STATE_FILE}: ${parsed}`);
		else {
			state = parsed;
			if (parsed.globalStep !== null && parsed.globalStep !== step) {
				warnings.push(`${STATE_FILE}: global_step ${parsed.globalStep} differs from the name's ${step}`);
			}
		}
	}
	let kind: Found['kind'] = 'periodic';
	if (names.has(SENTINEL)) {
		// The JIT checkpoint (saved on SIGTERM) deletes its sentinel when done.
		status = 'partial';
		kind = 'emergency';
		warnings.push(`${SENTINEL} present: a just-in-time save is in progress or was interrupted`);
	}
	const fields = {step, epoch: state?.epoch ?? null, loss: state?.loss ?? null, status, kind, warnings};
	return {found: found(entry, fields), state};
}

export const huggingfaceLayout: Layout = {
	name: 'huggingface',
	title: 'Hugging Face Trainer',
	async find(dir: ScanDir, io: LayoutIO): Promise<LayoutResult> {
		const candidates: Candidate[] = [];
		for (const entry of dir.entries) {
			if (entry.type !== 'dir') continue;
			const match = CHECKPOINT.exec(entry.name);
			if (match) {
				candidates.push(await checkpoint(entry, intOf(match[1]), io));
				continue;
			}
			const staging = STAGING.exec(entry.name);
			if (staging) {
				const warnings = ['staging directory (tmp-checkpoint-*): never renamed, so the save did not finish'];
				candidates.push({found: found(entry, {step: intOf(staging[1]), status: 'partial', warnings}), state: null});
			}
		}
		if (candidates.length === 0) return NOTHING;
		// The newest trainer_state.json names the best checkpoint (a path as the job saw it: compare the last part).
		const newest = candidates
			.filter(candidate => candidate.state !== null)
			.sort((a, b) => (a.found.step ?? -1) - (b.found.step ?? -1))
			.at(-1);
		const best = newest?.state?.best ? path.basename(newest.state.best.replace(/[\\/]+$/, '')) : null;
		const result = candidates.map(({found: item}) =>
			item.entry.name === best && item.status === 'complete' ? {...item, kind: 'best' as const} : item,
		);
		return {found: result, warnings: [], declared: null};
	},
	retention: keepNewest({framework: 'HF', setting: 'save_total_limit', note: ', best protected'}),
};
