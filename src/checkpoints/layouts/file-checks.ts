// Whether one checkpoint FILE is whole, judged from its own bytes, for layouts whose framework leaves no marker: an
// empty file is not; a torch.save zip must end with its end record; a .safetensors file must be as long as its header
// says (8-byte header length, the JSON header, then the tensors up to the largest data_offsets end). A legacy pickle
// or an unknown format cannot be judged without reading it all: it counts as complete.

import {hasZipEnd, isRecord, startsAsZip, TRUNCATED, type Entry, type Found, type LayoutIO} from './layout.js';

/** Headers larger than this are not read (a real one is a few MiB at most for the largest models). */
const MAX_SAFETENSORS_HEADER = 16 * 1024 * 1024;

export interface Judgement {
	readonly status: Found['status'];
	readonly warnings: string[];
}

const WHOLE: Judgement = {status: 'complete', warnings: []};

function partial(why: string): Judgement {
	return {status: 'partial', warnings: [why]};
}

/** The length a safetensors file must have, or a reason it cannot be known (then it is not judged). */
async function safetensorsLength(file: string, io: LayoutIO): Promise<number | null> {
	const head = await io.readRange(file, 8, 'head');
	if (head === null || head.length < 8) return null;
	const headerBytes = Number(head.readBigUInt64LE(0));
	if (!Number.isSafeInteger(headerBytes) || headerBytes > MAX_SAFETENSORS_HEADER) return null;
	const bytes = await io.readRange(file, 8 + headerBytes, 'head');
	if (bytes === null || bytes.length < 8 + headerBytes) return 8 + headerBytes; // cut inside the header itself
	let header: unknown;
	try {
		header = JSON.parse(bytes.subarray(8).toString('utf8'));
	} catch {
		return null;
	}
	if (!isRecord(header)) return null;
	let end = 0;
	for (const [name, tensor] of Object.entries(header)) {
		if (name === '__metadata__' || !isRecord(tensor) || !Array.isArray(tensor.data_offsets)) continue;
		const last = tensor.data_offsets[1];
		if (typeof last === 'number' && last > end) end = last;
	}
	return 8 + headerBytes + end;
}

export async function judgeFile(entry: Entry, io: LayoutIO): Promise<Judgement> {
	if (entry.type === 'missing') return partial(`dangling symlink to ${entry.linkTarget ?? '?'}`);
	if (entry.size === 0) return partial('empty file: the save did not get to write it');
	if (entry.name.endsWith('.safetensors')) {
		const length = await safetensorsLength(entry.path, io);
		if (length !== null && entry.size < length) {
			return partial(`truncated: ${entry.size} of the ${length} bytes its safetensors header describes`);
		}
		return WHOLE;
	}
	if ((await startsAsZip(io, entry.path)) && !(await hasZipEnd(io, entry.path))) return partial(TRUNCATED);
	return WHOLE;
}
