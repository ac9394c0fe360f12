// The zip container torch.save writes (since torch 1.6), read the way unzip does: from the end-of-central-directory
// record at the tail, through the central directory, never by walking local headers. torch 2.x sets general-purpose
// flag bit 3 on every entry: the local header's sizes are 0 and the real ones follow the data in a data descriptor,
// so a local-header walk finds every member empty. The central directory has the real sizes; the local header is read
// only for its name and extra lengths, which differ from the central ones (torch pads each local header with an
// extra field "FB..." so that the data starts on a 64-byte boundary). Members are STORED (torch) or DEFLATED (Python's
// zipfile, other writers); ZIP64 records and extra fields are read. Every count and size is bounded, and a file that is
// not what it says gives a reason, never a throw.
// Source: PKWARE APPNOTE.TXT 6.3.10 (4.3.7 local header, 4.3.12 central directory header, 4.3.14–4.3.16 zip64 end
// records, 4.5.3 zip64 extra field); pytorch caffe2/serialize/inline_container.cc (PyTorchStreamWriter: stored
// records, 64-byte alignment via the "FB" extra field, miniz writing data descriptors).

import {inflateRawSync} from 'node:zlib';
import type {LayoutIO} from '../layouts/layout.js';

export interface ZipMember {
	readonly name: string;
	/** 0 STORED, 8 DEFLATED; others are listed but not read. */
	readonly method: number;
	readonly compressedSize: number;
	readonly size: number;
	readonly localHeaderOffset: number;
}

export type ZipDirectory =
	| {readonly status: 'ok'; readonly members: readonly ZipMember[]; readonly fileSize: number}
	| {readonly status: 'unreadable'; readonly why: string};

export type MemberRead =
	| {readonly status: 'ok'; readonly bytes: Buffer}
	| {readonly status: 'unreadable'; readonly why: string};

export const ZIP_LOCAL_MAGIC = 0x04034b50;
const CENTRAL = 0x02014b50;
const EOCD = 0x06054b50;
const EOCD64_LOCATOR = 0x07064b50;
const EOCD64 = 0x06064b50;
const EOCD_SIZE = 22;
const LOCATOR_SIZE = 20;
const EOCD64_SIZE = 56;
const CENTRAL_SIZE = 46;
const LOCAL_SIZE = 30;
/** The comment is at most 65535 bytes, so the record starts in the last 64 KiB + 22. */
const EOCD_WINDOW = 0xffff + EOCD_SIZE;
const ZIP64_EXTRA = 0x0001;
const STORED = 0;
const DEFLATED = 8;

/** A checkpoint archive holds a few files per tensor; far more entries than this is not one worth reading. */
const MAX_MEMBERS = 1_000_000;
/** The central directory of MAX_MEMBERS entries with long names; beyond this the reader refuses. */
const MAX_DIRECTORY_BYTES = 256 * 1024 * 1024;

const U32_MAX = 0xffffffff;
const U16_MAX = 0xffff;

function u64(bytes: Buffer, at: number): number {
	const value = bytes.readBigUInt64LE(at);
	return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.POSITIVE_INFINITY : Number(value);
}

async function slice(io: LayoutIO, file: string, offset: number, count: number): Promise<Buffer | null> {
	return (await io.readAt(file, offset, count))?.bytes ?? null;
}

interface DirectoryPlace {
	readonly entries: number;
	readonly offset: number;
	readonly size: number;
}

/** Where the central directory is, from the EOCD record at `eocdAt` (and the ZIP64 records before it). */
async function directoryPlace(
	io: LayoutIO,
	file: string,
	eocd: Buffer,
	eocdAt: number,
): Promise<DirectoryPlace | string> {
	const entries = eocd.readUInt16LE(10);
	const size = eocd.readUInt32LE(12);
	const offset = eocd.readUInt32LE(16);
	const saturated = entries === U16_MAX || size === U32_MAX || offset === U32_MAX;
	// ZIP64: a locator right before the EOCD says where the ZIP64 end record is. Writers add it when any count or
	// offset needs it (Python's zipfile: over its ZIP64_LIMIT) without always saturating the EOCD, so it is looked for
	// whenever there is room, as Python's and libzip's readers do.
	const locator = eocdAt >= LOCATOR_SIZE ? await slice(io, file, eocdAt - LOCATOR_SIZE, LOCATOR_SIZE) : null;
	if (locator?.length !== LOCATOR_SIZE || locator.readUInt32LE(0) !== EOCD64_LOCATOR) {
		return saturated ? 'its end record says ZIP64 but no ZIP64 locator precedes it' : {entries, offset, size};
	}
	const recordAt = u64(locator, 8);
	const record = await slice(io, file, recordAt, EOCD64_SIZE);
	if (record?.length !== EOCD64_SIZE || record.readUInt32LE(0) !== EOCD64) {
		return `no ZIP64 end record at offset ${recordAt}, where its locator points`;
	}
	return {entries: u64(record, 32), size: u64(record, 40), offset: u64(record, 48)};
}

/** The zip64 extra field's values for the central fields that were saturated, in APPNOTE's order. */
function zip64Values(extra: Buffer, wanted: {size: boolean; compressed: boolean; offset: boolean}) {
	const values: {size?: number; compressed?: number; offset?: number} = {};
	for (let at = 0; at + 4 <= extra.length; ) {
		const id = extra.readUInt16LE(at);
		const length = extra.readUInt16LE(at + 2);
		if (id === ZIP64_EXTRA) {
			let field = at + 4;
			const next = (): number | undefined => {
				if (field + 8 > at + 4 + length || field + 8 > extra.length) return undefined;
				const value = u64(extra, field);
				field += 8;
				return value;
			};
			if (wanted.size) values.size = next();
			if (wanted.compressed) values.compressed = next();
			if (wanted.offset) values.offset = next();
			return values;
		}
		at += 4 + length;
	}
	return values;
}

function parseDirectory(bytes: Buffer, place: DirectoryPlace, fileSize: number): ZipDirectory {
	const members: ZipMember[] = [];
	let at = 0;
	for (let index = 0; index < place.entries; index++) {
		if (at + CENTRAL_SIZE > bytes.length || bytes.readUInt32LE(at) !== CENTRAL) {
			return {
				status: 'unreadable',
				why: `central directory entry ${index} of ${place.entries} is not where it should be`,
			};
		}
		const method = bytes.readUInt16LE(at + 10);
		let compressedSize = bytes.readUInt32LE(at + 20);
		let size = bytes.readUInt32LE(at + 24);
		const nameLength = bytes.readUInt16LE(at + 28);
		const extraLength = bytes.readUInt16LE(at + 30);
		const commentLength = bytes.readUInt16LE(at + 32);
		let localHeaderOffset = bytes.readUInt32LE(at + 42);
		const end = at + CENTRAL_SIZE + nameLength + extraLength + commentLength;
		if (end > bytes.length) return {status: 'unreadable', why: `central directory entry ${index} runs past its end`};
		const name = bytes.subarray(at + CENTRAL_SIZE, at + CENTRAL_SIZE + nameLength).toString('utf8');
		const wanted = {
			size: size === U32_MAX,
			compressed: compressedSize === U32_MAX,
			offset: localHeaderOffset === U32_MAX,
		};
		if (wanted.size || wanted.compressed || wanted.offset) {
			const extra = bytes.subarray(at + CENTRAL_SIZE + nameLength, at + CENTRAL_SIZE + nameLength + extraLength);
			const values = zip64Values(extra, wanted);
			size = wanted.size ? (values.size ?? -1) : size;
			compressedSize = wanted.compressed ? (values.compressed ?? -1) : compressedSize;
			localHeaderOffset = wanted.offset ? (values.offset ?? -1) : localHeaderOffset;
			if (size < 0 || compressedSize < 0 || localHeaderOffset < 0) {
				return {status: 'unreadable', why: `${name}: its sizes need a ZIP64 extra field it does not have`};
			}
		}
		if (localHeaderOffset + LOCAL_SIZE + compressedSize > fileSize) {
			return {status: 'unreadable', why: `${name}: its data runs past the end of the file (truncated?)`};
		}
		members.push({name, method, compressedSize, size, localHeaderOffset});
		at = end;
	}
	return {status: 'ok', members, fileSize};
}

/** The members of a zip file, from its central directory. Never throws. */
export async function readZipDirectory(io: LayoutIO, file: string): Promise<ZipDirectory> {
	const head = await io.readAt(file, 0, 4);
	if (head === null) return {status: 'unreadable', why: 'cannot be read'};
	const fileSize = head.size;
	if (fileSize < EOCD_SIZE) return {status: 'unreadable', why: `${fileSize} bytes: too short for a zip`};
	// torch writes no archive comment: the record is the last 22 bytes. Else search back over the longest comment.
	let eocdAt = -1;
	let eocd: Buffer | null = await slice(io, file, fileSize - EOCD_SIZE, EOCD_SIZE);
	if (eocd?.length === EOCD_SIZE && eocd.readUInt32LE(0) === EOCD) eocdAt = fileSize - EOCD_SIZE;
	else {
		const windowStart = Math.max(0, fileSize - EOCD_WINDOW);
		const window = await slice(io, file, windowStart, fileSize - windowStart);
		if (window === null) return {status: 'unreadable', why: 'cannot be read'};
		for (let at = window.length - EOCD_SIZE; at >= 0; at--) {
			if (window.readUInt32LE(at) === EOCD && at + EOCD_SIZE + window.readUInt16LE(at + 20) <= window.length) {
				eocdAt = windowStart + at;
				eocd = window.subarray(at, at + EOCD_SIZE);
				break;
			}
		}
	}
	if (eocdAt < 0 || eocd === null) {
		return {status: 'unreadable', why: 'truncated: no zip end-of-central-directory record in its last 64 KiB'};
	}
	const place = await directoryPlace(io, file, eocd, eocdAt);
	if (typeof place === 'string') return {status: 'unreadable', why: place};
	if (place.entries > MAX_MEMBERS) {
		return {status: 'unreadable', why: `${place.entries} zip entries, over the ${MAX_MEMBERS} this reader reads`};
	}
	if (place.size > MAX_DIRECTORY_BYTES || place.offset + place.size > eocdAt) {
		return {
			status: 'unreadable',
			why: `its central directory (${place.size} bytes at ${place.offset}) is not inside the file`,
		};
	}
	const directory = await slice(io, file, place.offset, place.size);
	if (directory?.length !== place.size) return {status: 'unreadable', why: 'its central directory cannot be read'};
	return parseDirectory(directory, place, fileSize);
}

/** Where a member's data starts, from its local header; a reason when there is no local header there. */
async function memberDataAt(io: LayoutIO, file: string, member: ZipMember): Promise<number | string> {
	const local = await slice(io, file, member.localHeaderOffset, LOCAL_SIZE);
	if (local?.length !== LOCAL_SIZE || local.readUInt32LE(0) !== ZIP_LOCAL_MAGIC) {
		return `${member.name}: no local header at offset ${member.localHeaderOffset}`;
	}
	// The local name and extra lengths, not the central ones: torch's local headers carry the alignment padding.
	return member.localHeaderOffset + LOCAL_SIZE + local.readUInt16LE(26) + local.readUInt16LE(28);
}

/**
 * `count` bytes at `offset` of a member's (uncompressed) data: a slice of a STORED member (a tensor's storage in a
 * large checkpoint is read without reading the rest); a DEFLATED one is inflated whole, up to maxBytes.
 */
export async function readZipMemberRange(
	io: LayoutIO,
	file: string,
	member: ZipMember,
	offset: number,
	count: number,
	maxBytes: number,
): Promise<MemberRead> {
	if (offset < 0 || count < 0 || offset + count > member.size) {
		return {
			status: 'unreadable',
			why: `${member.name}: bytes ${offset}..${offset + count} are outside its ${member.size}`,
		};
	}
	if (member.method !== STORED) {
		const whole = await readZipMember(io, file, member, maxBytes);
		return whole.status === 'ok' ? {status: 'ok', bytes: whole.bytes.subarray(offset, offset + count)} : whole;
	}
	const dataAt = await memberDataAt(io, file, member);
	if (typeof dataAt === 'string') return {status: 'unreadable', why: dataAt};
	const bytes = await slice(io, file, dataAt + offset, count);
	if (bytes?.length !== count) return {status: 'unreadable', why: `${member.name}: cut short`};
	return {status: 'ok', bytes};
}

/** One member's bytes, inflated when DEFLATED; refused over maxBytes (uncompressed). Never throws. */
export async function readZipMember(
	io: LayoutIO,
	file: string,
	member: ZipMember,
	maxBytes: number,
): Promise<MemberRead> {
	if (member.size > maxBytes) {
		return {status: 'unreadable', why: `${member.name} is ${member.size} bytes, over the ${maxBytes} read`};
	}
	// Deflate never grows data by more than a few bytes per 16 KiB block: a bigger compressed size is not honest.
	if (member.compressedSize > maxBytes + maxBytes / 100 + 1024) {
		return {
			status: 'unreadable',
			why: `${member.name} is ${member.compressedSize} bytes compressed, over the ${maxBytes} read`,
		};
	}
	if (member.method !== STORED && member.method !== DEFLATED) {
		return {
			status: 'unreadable',
			why: `${member.name} uses compression method ${member.method} (only stored and deflated are read)`,
		};
	}
	const dataAt = await memberDataAt(io, file, member);
	if (typeof dataAt === 'string') return {status: 'unreadable', why: dataAt};
	const data = await slice(io, file, dataAt, member.compressedSize);
	if (data?.length !== member.compressedSize) {
		return {
			status: 'unreadable',
			why: `${member.name}: cut short (${data?.length ?? 0} of ${member.compressedSize} bytes)`,
		};
	}
	if (member.method === STORED) return {status: 'ok', bytes: data};
	try {
		const bytes = inflateRawSync(data, {maxOutputLength: Math.max(1, maxBytes)});
		if (bytes.length !== member.size) {
			return {status: 'unreadable', why: `${member.name}: inflates to ${bytes.length} bytes, not ${member.size}`};
		}
		return {status: 'ok', bytes};
	} catch (caught) {
		const message = caught instanceof Error ? caught.message : String(caught);
		return {status: 'unreadable', why: `${member.name}: does not inflate (${message})`};
	}
}
