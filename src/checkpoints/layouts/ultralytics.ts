// Ultralytics YOLO: BaseTrainer.save_model torch.saves the checkpoint once into a memory buffer, then write_bytes()
// it, in place (no temporary name, no marker), to runs/<task>/<name>/weights/last.pt every epoch, best.pt when the
// epoch's fitness is the best so far, and epoch<N>.pt every save_period epochs (N is the 0-based trainer epoch).
// final_eval later rewrites last.pt and best.pt without the optimizer (strip_optimizer). Partial: a file cut short
// (empty, or without its zip end record). Nothing is ever deleted. The epoch of last.pt and best.pt is inside the
// pickle: left unknown.
// Source: ultralytics/ultralytics ultralytics/engine/trainer.py: BaseTrainer.__init__ (wdir, last, best,
// save_period, args.yaml), BaseTrainer.save_model, BaseTrainer.final_eval.

import path from 'node:path';
import {keepAll} from '../rules.js';
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

const EPOCH = /^epoch(\d+)\.pt$/;
const WEIGHTS_DIR = 'weights';

function kindOf(name: string): Found['kind'] | null {
	if (name === 'last.pt') return 'last';
	if (name === 'best.pt') return 'best';
	return EPOCH.test(name) ? 'periodic' : null;
}

export const ultralyticsLayout: Layout = {
	name: 'ultralytics',
	title: 'Ultralytics YOLO',
	async find(dir: ScanDir, io: LayoutIO): Promise<LayoutResult> {
		// last.pt and best.pt are common names: only in the trainer's own weights dir.
		if (path.basename(dir.path) !== WEIGHTS_DIR) return NOTHING;
		const result: Found[] = [];
		for (const entry of dir.entries) {
			if (entry.type === 'dir' || entry.type === 'other') continue;
			const kind = kindOf(entry.name);
			if (kind === null) continue;
			const judged = await judgeFile(entry, io);
			const cutOff = entry.type === 'file' && judged.status === 'partial';
			const warnings = cutOff
				? judged.warnings.map(why => `${why} (save_model writes it in place: the write was cut off)`)
				: judged.warnings;
			const epoch = intOf(EPOCH.exec(entry.name)?.[1]);
			result.push(found(entry, {epoch, kind, status: judged.status, warnings}));
		}
		return result.length === 0 ? NOTHING : {found: result, warnings: [], declared: null};
	},
	retention: keepAll('Ultralytics never deletes'),
};
