// Whether an HDF5 file (Keras's .weights.h5, a legacy .h5 model) is whole, from its superblock alone: the 8-byte
// signature \x89HDF\r\n\x1a\n at 0 (or 512, 1024, 2048 after a user block), then by superblock version:
//   v0/v1: version bytes, size of offsets at +13, size of lengths at +14, group K values, consistency flags (u32) at
//          +20, [v1: 4 more bytes], then base, free-space, END-OF-FILE and driver-info addresses.
//   v2/v3: size of offsets at +9, size of lengths at +10, consistency flags (u8) at +11, then base, superblock
//          extension, END-OF-FILE and root object header addresses, and a checksum.
// The library writes the superblock when the file is created and rewrites it (EOF address, flags) on flush and close.
// While a writer holds the file, bit 0 of the consistency flags (write access) is set, in v0 as in v3 (seen with
// HDF5 2.0 through h5py 3.16: set at open, cleared at close); a file shorter than base + EOF was cut short.
// Source: the HDF5 File Format Specification, "Superblock" (Level 0A), checked against files h5py wrote.

import type {Entry, Found, LayoutIO} from './layout.js';

const SIGNATURE = Buffer.from([0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Where a superblock may start: 0, or after a user block of 512 × 2^n bytes. */
const SUPERBLOCK_AT = [0, 512, 1024, 2048];
/** Enough for a v1 superblock with 8-byte offsets after the largest user block we look past. */
const HEAD_BYTES = 2048 + 64;
const WRITE_ACCESS = 0x01;

export interface Hdf5Superblock {
	readonly version: number;
	/** Set while a writer holds the file open (or when it died before closing it). */
	readonly writeAccess: boolean;
	/** base + end-of-file address: the length the file must have; null when the address is undefined. */
	readonly length: number | null;
}

/** Reads an unsigned little-endian address of `size` bytes; null for the undefined address (all bits set). */
function address(head: Buffer, at: number, size: number): number | null {
	if (at + size > head.length) return null;
	let value = 0n;
	let allSet = true;
	for (let i = size - 1; i >= 0; i--) {
		const byte = head[at + i]!;
		if (byte !== 0xff) allSet = false;
		value = (value << 8n) | BigInt(byte);
	}
	if (allSet) return null;
	const number = Number(value);
	return Number.isSafeInteger(number) ? number : null;
}

/** The superblock's version, write-access flag and required length; a string says why it cannot be read. */
function parseSuperblock(head: Buffer): Hdf5Superblock | string {
	const start = SUPERBLOCK_AT.find(at => head.subarray(at, at + 8).equals(SIGNATURE));
	if (start === undefined) return 'no HDF5 signature';
	const version = head[start + 8];
	if (version === undefined) return 'superblock cut short';
	let offsets: number | undefined;
	let flags: number | undefined;
	let addresses: number;
	if (version === 0 || version === 1) {
		offsets = head[start + 13];
		flags = start + 24 <= head.length ? head.readUInt32LE(start + 20) : undefined;
		addresses = start + (version === 0 ? 24 : 28);
	} else if (version === 2 || version === 3) {
		offsets = head[start + 9];
		flags = head[start + 11];
		addresses = start + 12;
	} else return `unknown HDF5 superblock version ${version}`;
	if (offsets === undefined || flags === undefined) return 'superblock cut short';
	if (![2, 4, 8].includes(offsets)) return `HDF5 superblock with ${offsets}-byte offsets`;
	// Both layouts put the base address first and the end-of-file address third.
	if (addresses + 3 * offsets > head.length) return 'superblock cut short';
	const base = address(head, addresses, offsets) ?? 0;
	const eof = address(head, addresses + 2 * offsets, offsets);
	return {version, writeAccess: (flags & WRITE_ACCESS) !== 0, length: eof === null ? null : base + eof};
}

export interface Hdf5Judgement {
	readonly status: Found['status'];
	readonly warnings: string[];
}

/** Whether one HDF5 file is whole: non-empty, a readable superblock, no writer holding it, as long as it says. */
export async function judgeHdf5(entry: Entry, io: LayoutIO): Promise<Hdf5Judgement> {
	if (entry.type === 'missing')
		return {status: 'partial', warnings: [`dangling symlink to ${entry.linkTarget ?? '?'}`]};
	if (entry.size === 0) return {status: 'partial', warnings: ['empty file: the save did not get to write it']};
	const head = await io.readRange(entry.path, HEAD_BYTES, 'head');
	if (head === null) return {status: 'complete', warnings: []}; // vanished or unreadable: nothing to judge by
	const block = parseSuperblock(head);
	if (typeof block === 'string') return {status: 'partial', warnings: [`${block}: not a whole HDF5 file`]};
	if (block.writeAccess) {
		const why = 'HDF5 write-access flag set: the file is still open for writing, or its writer died before closing it';
		return {status: 'partial', warnings: [why]};
	}
	if (block.length !== null && entry.size < block.length) {
		return {
			status: 'partial',
			warnings: [`truncated: ${entry.size} of the ${block.length} bytes its HDF5 superblock gives as end of file`],
		};
	}
	return {status: 'complete', warnings: []};
}
