// What a timm checkpoint file says of itself: CheckpointSaver._save pickles {'epoch', 'arch', 'state_dict',
// 'optimizer', 'version': 2, 'args', 'metric'} (metric only when one was given), so each checkpoint-<E>.pth.tar
// carries the score it was ranked by, and `args` is whatever the script gave the saver: train.py's argparse
// Namespace (checkpoint_hist is the max_history it passed, eval_metric the metric's name), or anything else. The
// pickle is read as data (torch-file/, never unpickled); a file already read is not read again while its size and
// mtime stay the same.
// Source: huggingface/pytorch-image-models 1.0.29 timm/utils/checkpoint_saver.py: CheckpointSaver._save;
// train.py: main (CheckpointSaver(..., args=args, max_history=args.checkpoint_hist), eval_metric).

import {attr, dictGet, pyInt, pyNumber, pyStr} from '../torch-file/py-value.js';
import {readTorchFile} from '../torch-file/torch-file.js';
import {FileMemo} from './file-memo.js';
import type {Entry, LayoutIO} from './layout.js';

export interface TimmSave {
	readonly epoch: number | null;
	/** The score save_checkpoint was given; null when the pickle has none. */
	readonly metric: number | null;
	/** train.py's arguments as pickled in the save: null when args is not a Namespace holding them. */
	readonly checkpointHist: number | null;
	readonly evalMetric: string | null;
}

/** The object pickle of a timm save is its state dicts' keys and a Namespace: a few KiB to a few MiB. */
const MAX_PICKLE_BYTES = 8 * 1024 * 1024;
const remembered = new FileMemo<TimmSave | {readonly problem: string}>(256);

/** One timm checkpoint's epoch, metric and train.py arguments, or why they cannot be read. Never throws. */
export function readTimmSave(io: LayoutIO, entry: Entry): Promise<TimmSave | {readonly problem: string}> {
	return remembered.get(entry, async () => {
		const file = await readTorchFile(io, entry.path, {maxPickleBytes: MAX_PICKLE_BYTES});
		if (file.status !== 'ok') return {problem: file.why};
		const args = dictGet(file.root, 'args');
		const hist = pyInt(attr(args, 'checkpoint_hist'));
		return {
			epoch: pyInt(dictGet(file.root, 'epoch')),
			metric: pyNumber(dictGet(file.root, 'metric')),
			checkpointHist: hist !== null && hist >= 1 ? hist : null,
			evalMetric: pyStr(attr(args, 'eval_metric')),
		};
	});
}
