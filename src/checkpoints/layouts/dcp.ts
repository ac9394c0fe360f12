// torch.distributed.checkpoint (FSDP/TP, torchtitan's checkpoint/step-<N>/, torchtune's DCP variant): a directory of
// __<rank>_<n>.distcp shards whose coordinator writes `.metadata.tmp`, fsyncs and renames it to `.metadata` last.
// `.metadata` ⇒ complete; shards or `.metadata.tmp` without it ⇒ partial. DCP deletes nothing itself, and records
// no cadence: `.metadata` (torch 2.11, test/fixtures/frameworks/recorded/dcp-steps) holds the tensors' metadata,
// storage_meta (checkpoint_id, save_id, load_id, modules) and a version, nothing of who saves how often.
// Source: pytorch/pytorch torch/distributed/checkpoint/filesystem.py: FileSystemWriter.finish (.metadata.tmp written,
// fsynced, renamed to .metadata), write_data (the __<rank>_<n>.distcp shards).

import path from 'node:path';
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
import {keepNewest} from '../rules.js';

const METADATA = '.metadata';
const METADATA_TMP = '.metadata.tmp';
const SHARD = /\.distcp$/;
/** step-<N>, step_<N>, iter_<N>, or just <N>. */
const STEP = /^(?:(?:.*[-_.])?(?:step|iter|global_step)[-_=]?)?(\d+)$/i;
const EPOCH = /^(?:.*[-_.])?epoch[-_=]?(\d+)$/i;

export const dcpLayout: Layout = {
	name: 'dcp',
	title: 'torch.distributed.checkpoint',
	async find(dir: ScanDir, io: LayoutIO): Promise<LayoutResult> {
		const result: Found[] = [];
		for (const entry of dir.entries) {
			if (entry.type !== 'dir') continue;
			const fields = {step: intOf(STEP.exec(entry.name)?.[1]), epoch: intOf(EPOCH.exec(entry.name)?.[1])};
			const complete = (await io.entry(path.join(entry.path, METADATA)))?.type === 'file';
			const tmp = !complete && (await io.entry(path.join(entry.path, METADATA_TMP)))?.type === 'file';
			// Shards alone are looked for only under step-like names: listing every directory of a run dir is not cheap.
			const stepLike = fields.step !== null || fields.epoch !== null;
			const shards = !complete && !tmp && stepLike && (await io.list(entry.path))?.some(file => SHARD.test(file.name));
			if (complete) result.push(found(entry, fields));
			else if (tmp || shards) {
				const why = tmp ? `${METADATA_TMP} without ${METADATA}` : `shards without ${METADATA}`;
				result.push(found(entry, {...fields, status: 'partial', warnings: [`${why}: the save did not finish`]}));
			}
		}
		return result.length === 0 ? NOTHING : {found: result, warnings: [], declared: null};
	},
	// DCP itself deletes nothing; whoever drives it (torchtune, a script) keeps the newest: --keep N.
	retention: keepNewest({framework: 'DCP', setting: 'keep'}),
};
