// The fallback for entries no specific layout claimed: files (.pt .pth .bin .ckpt .safetensors) or directories whose
// names look like checkpoints (ckpt, checkpoint, model, step, iter) and carry a number, e.g. model_step1000.pt,
// ckpt-200.pth, iter_0000500/. Kind unknown. Partial when the name ends in .tmp, .partial or .incomplete, or when a
// file's own bytes say it was cut short (file-checks.ts: empty, a torch zip without its end record, a safetensors
// file shorter than its header says). A directory's contents are not judged: nothing says what it should hold.

import {keepNewest} from '../rules.js';
import {judgeFile} from './file-checks.js';
import {
	found,
	intOf,
	NOTHING,
	type Found,
	type Layout,
	type LayoutIO,
	type LayoutResult,
	type ScanDir,
} from './layout.js';

const UNFINISHED = /\.(tmp|partial|incomplete)$/i;
const EXTENSION = /\.(pt|pth|bin|ckpt|safetensors)$/i;
const WORD = /ckpt|checkpoint|model|step|iter/i;
/** model-00001-of-00004.safetensors is one shard of a model, not a checkpoint of its own. */
const SHARD = /\d+-of-\d+/;
const STEP = /(?:step|iter)[-_=]?(\d+)/i;
const EPOCH = /epoch[-_=]?(\d+)/i;

export interface GenericName {
	readonly step: number | null;
	readonly epoch: number | null;
	/** Ends in .tmp, .partial or .incomplete. */
	readonly unfinished: boolean;
}

/** Step and epoch from a name that looks like a checkpoint's, or null when it does not. */
function parseGenericName(name: string, isDir: boolean): GenericName | null {
	const unfinished = UNFINISHED.test(name);
	let stem = name.replace(UNFINISHED, '');
	if (!isDir) {
		if (!EXTENSION.test(stem)) return null;
		stem = stem.replace(EXTENSION, '');
	}
	if (!WORD.test(stem) || SHARD.test(stem) || !/\d/.test(stem)) return null;
	const epochMatch = EPOCH.exec(stem);
	const epoch = intOf(epochMatch?.[1]);
	let step = intOf(STEP.exec(stem)?.[1]);
	if (step === null) {
		const rest = epochMatch ? stem.replace(epochMatch[0], '') : stem;
		step = intOf(rest.match(/\d+/g)?.at(-1));
	}
	if (step === null && epoch === null) return null;
	return {step, epoch, unfinished};
}

export const genericLayout: Layout = {
	name: 'generic',
	title: 'unrecognised framework',
	async find(dir: ScanDir, io: LayoutIO): Promise<LayoutResult> {
		const result: Found[] = [];
		for (const entry of dir.entries) {
			if (entry.type === 'other') continue;
			const parsed = parseGenericName(entry.name, entry.type === 'dir');
			if (parsed === null) continue;
			const warnings: string[] = [];
			if (parsed.unfinished) warnings.push('the name marks it unfinished');
			// A name already marked unfinished is not read: it is partial whatever its bytes say.
			if (entry.type !== 'dir' && !parsed.unfinished) warnings.push(...(await judgeFile(entry, io)).warnings);
			const status = warnings.length > 0 ? 'partial' : 'complete';
			result.push(found(entry, {step: parsed.step, epoch: parsed.epoch, status, warnings}));
		}
		return result.length === 0 ? NOTHING : {found: result, warnings: [], declared: null};
	},
	// Nothing says what rotates these: --keep N, newest kept.
	retention: keepNewest({framework: 'generic', setting: 'keep'}),
};
