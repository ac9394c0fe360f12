// Bytes shaped as PyTorch and Python write them, for the HF and Accelerate fixtures: a torch.save zip with several
// stored records (torch/serialization.py: _save writes data.pkl first, then .format_version, .storage_alignment,
// byteorder, the tensor records, and the writer adds version and .data/serialization_id at close; records sit under
// `<file stem>/` and are padded to 64 bytes with an "FB" extra field, as caffe2/serialize/inline_container.cc does),
// a protocol-2 pickle of a TrainingArguments-like object (pickle.py: save_reduce with NEWOBJ, then the __dict__ as
// SETITEMS and BUILD; each new str memoised with BINPUT), and a tiny safetensors file.

import {crc32} from 'node:zlib';
import {u16, u32} from '../fixtures.js';

const ALIGN = 64;

/** A stored zip as torch.save writes it: each record under `stem/`, its data aligned to 64 bytes. */
function torchZip(stem: string, records: ReadonlyArray<readonly [string, Buffer]>): Buffer {
	const locals: Buffer[] = [];
	const centrals: Buffer[] = [];
	let offset = 0;
	for (const [name, data] of records) {
		const fullName = Buffer.from(`${stem}/${name}`);
		const headerEnd = offset + 30 + fullName.length + 4; // the FB extra field's own 4 bytes
		const pad = (ALIGN - (headerEnd % ALIGN)) % ALIGN;
		const extra = Buffer.concat([Buffer.from('FB'), u16(pad), Buffer.alloc(pad, 0x5a)]);
		const sizes = [u32(crc32(data)), u32(data.length), u32(data.length)];
		const common = [u16(20), u16(0), u16(0), u16(0), u16(0x21), ...sizes, u16(fullName.length)];
		const local = Buffer.concat([u32(0x04034b50), ...common, u16(extra.length), fullName, extra, data]);
		const central = Buffer.concat([
			u32(0x02014b50),
			u16(20),
			...common,
			u16(0),
			u16(0),
			u16(0),
			u16(0),
			u32(0),
			u32(offset),
			fullName,
		]);
		locals.push(local);
		centrals.push(central);
		offset += local.length;
	}
	const cd = Buffer.concat(centrals);
	const n = records.length;
	const end = Buffer.concat([u32(0x06054b50), u16(0), u16(0), u16(n), u16(n), u32(cd.length), u32(offset), u16(0)]);
	return Buffer.concat([...locals, cd, end]);
}

/** torch.save(obj, '<stem>.<ext>') of a pickled object without tensors. */
export function torchSave(stem: string, pickle: Buffer): Buffer {
	return torchZip(stem, [
		['data.pkl', pickle],
		['.format_version', Buffer.from('1')],
		['.storage_alignment', Buffer.from('64')],
		['byteorder', Buffer.from('little')],
		['version', Buffer.from('3\n')],
		['.data/serialization_id', Buffer.from('1234567890123456789012345678901234567890')],
	]);
}

export type PyValue = string | number | boolean | null | {readonly float: number} | {readonly enumOf: string};

/** A protocol-2 pickler for one object of class `module.name` whose __dict__ holds `fields`, in order. */
export function pickleObject(module: string, name: string, fields: ReadonlyArray<readonly [string, PyValue]>): Buffer {
	const out: Buffer[] = [];
	let memo = 0;
	const put = (): void => {
		out.push(memo < 256 ? Buffer.from([0x71, memo]) : Buffer.concat([Buffer.from([0x72]), u32(memo)]));
		memo += 1;
	};
	const str = (text: string): void => {
		const bytes = Buffer.from(text, 'utf8');
		out.push(Buffer.from([0x58]), u32(bytes.length), bytes);
		put();
	};
	const global = (mod: string, cls: string): void => {
		out.push(Buffer.from(`c${mod}\n${cls}\n`, 'latin1'));
		put();
	};
	const value = (v: PyValue): void => {
		if (v === null) out.push(Buffer.from('N'));
		else if (v === true) out.push(Buffer.from([0x88]));
		else if (v === false) out.push(Buffer.from([0x89]));
		else if (typeof v === 'string') str(v);
		else if (typeof v === 'number') {
			if (v >= 0 && v < 256) out.push(Buffer.from([0x4b, v]));
			else if (v >= 0 && v < 65536) out.push(Buffer.from([0x4d]), u16(v));
			else {
				const b = Buffer.alloc(5);
				b.writeUInt8(0x4a, 0);
				b.writeInt32LE(v, 1);
				out.push(b);
			}
		} else if ('float' in v) {
			const b = Buffer.alloc(9);
			b.writeUInt8(0x47, 0);
			b.writeDoubleBE(v.float, 1);
			out.push(b);
		} else {
			// An Enum member: Enum.__reduce_ex__ gives (cls, (value,)).
			global('transformers.trainer_utils', 'IntervalStrategy');
			str(v.enumOf);
			out.push(Buffer.from([0x85]));
			put();
			out.push(Buffer.from('R'));
			put();
		}
	};
	out.push(Buffer.from([0x80, 0x02]));
	global(module, name);
	out.push(Buffer.from(')'), Buffer.from([0x81]));
	put();
	out.push(Buffer.from('}'));
	put();
	out.push(Buffer.from('('));
	for (const [key, v] of fields) {
		str(key);
		value(v);
	}
	out.push(Buffer.from('ub.'));
	return Buffer.concat(out);
}

/** A whole safetensors file with one float32 tensor of `count` values. */
export function safetensors(count: number): Buffer {
	const header = JSON.stringify({weight: {dtype: 'F32', shape: [count], data_offsets: [0, count * 4]}});
	const padded = header.padEnd(Math.ceil(header.length / 8) * 8, ' ');
	const length = Buffer.alloc(8);
	length.writeBigUInt64LE(BigInt(padded.length));
	return Buffer.concat([length, Buffer.from(padded), Buffer.alloc(count * 4, 0x3f)]);
}
