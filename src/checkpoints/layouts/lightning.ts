// PyTorch Lightning: `*.ckpt` in `lightning_logs/version_N/checkpoints/`, `dirpath` or `default_root_dir`:
//   epoch=E-step=S(-vN).ckpt (ModelCheckpoint's default template), last(-vN).ckpt (maybe a symlink), hpc_ckpt_N.ckpt
//   (SLURM SIGUSR1 save), on_exception.ckpt. A file is a torch.save zip (complete ⇔ its end record is there: a save
//   moved across file systems is copied in place); a directory (DeepSpeed / FSDP) needs `latest` or `.metadata`.

import {
	found,
	hasZipEnd,
	intOf,
	NOTHING,
	TRUNCATED,
	type Entry,
	type Found,
	type Layout,
	type LayoutIO,
	type LayoutResult,
	type ScanDir,
} from './layout.js';
import {topK} from '../rules.js';

const LAST = /^last(?:-v?\d+)?\.ckpt$/;
const HPC = /^hpc_ckpt_(\d+)\.ckpt$/;
const ON_EXCEPTION = /^on_exception\.ckpt$/;
const EPOCH = /(?:^|[-_])epoch=(\d+)/;
const STEP = /(?:^|[-_])step=(\d+)/;
/** Lightning's own checkpoint directories: every .ckpt there is Lightning's, whatever the filename template. */
const LIGHTNING_DIR = /(?:^|\/)lightning_logs\/[^/]+\/checkpoints$/;

function kindOf(name: string): Found['kind'] {
	if (LAST.test(name)) return 'last';
	if (HPC.test(name)) return 'manual';
	if (ON_EXCEPTION.test(name)) return 'emergency';
	return 'periodic';
}

function isLightningName(name: string): boolean {
	return LAST.test(name) || HPC.test(name) || ON_EXCEPTION.test(name) || EPOCH.test(name) || STEP.test(name);
}

async function completeness(entry: Entry, io: LayoutIO): Promise<{status: Found['status']; warnings: string[]}> {
	if (entry.type === 'missing') {
		const warnings = [`dangling symlink to ${entry.linkTarget ?? '?'}: its target was rotated away`];
		return {status: 'partial', warnings};
	}
	if (entry.type === 'dir') {
		const names = new Set((await io.list(entry.path))?.map(inner => inner.name) ?? []);
		if (names.has('latest') || names.has('.metadata')) return {status: 'complete', warnings: []};
		return {
			status: 'partial',
			warnings: ['sharded checkpoint without `latest` or `.metadata`: the save did not finish'],
		};
	}
	if (await hasZipEnd(io, entry.path)) return {status: 'complete', warnings: []};
	return {status: 'partial', warnings: [TRUNCATED]};
}

export const lightningLayout: Layout = {
	name: 'lightning',
	title: 'PyTorch Lightning',
	async find(dir: ScanDir, io: LayoutIO): Promise<LayoutResult> {
		const anyName = LIGHTNING_DIR.test(dir.rel);
		const result: Found[] = [];
		for (const entry of dir.entries) {
			if (!entry.name.endsWith('.ckpt') || entry.type === 'other') continue;
			if (!anyName && !isLightningName(entry.name)) continue;
			const {status, warnings} = await completeness(entry, io);
			result.push(
				found(entry, {
					step: intOf(STEP.exec(entry.name)?.[1]),
					epoch: intOf(EPOCH.exec(entry.name)?.[1]),
					kind: kindOf(entry.name),
					status,
					warnings,
				}),
			);
		}
		return result.length === 0 ? NOTHING : {found: result, warnings: [], declared: null};
	},
	retention: topK({framework: 'Lightning', setting: 'save_top_k'}),
};
