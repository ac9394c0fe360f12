// File names are bytes, and nothing makes them UTF-8. Node turns a listed name into a string by decoding it as UTF-8,
// replacing each invalid byte with U+FFFD: `checkpoint-\xff` comes back as `checkpoint-\ufffd`, a different name that
// opens nothing, or opens another file that really has that name (and a "next save prunes" line would point at it).
//
// So names are read as bytes and kept the way Python keeps them (PEP 383, "surrogateescape"): every byte that is not
// part of valid UTF-8 becomes the lone surrogate U+DC80–U+DCFF, everything else decodes as usual. The result is still
// a string (path.join, regexes and Sets work on it), maps back to the exact bytes for a system call (fsPath), and
// shows as `\xff` (shownName). Valid UTF-8 never decodes to a lone surrogate, so the mapping cannot be ambiguous.

const ESCAPED = /[\udc80-\udcff]/u;
const ESCAPED_ALL = /[\udc80-\udcff]/gu;
const LOW = 0xdc00;

/** Length of the valid UTF-8 sequence at `at`, or 0 when the byte there starts none (RFC 3629's table). */
function sequenceLength(bytes: Uint8Array, at: number): number {
	const lead = bytes[at] ?? 0;
	if (lead < 0x80) return 1;
	let length: number;
	let min = 0x80;
	let max = 0xbf;
	if (lead >= 0xc2 && lead <= 0xdf) length = 2;
	else if (lead >= 0xe0 && lead <= 0xef) {
		length = 3;
		if (lead === 0xe0) min = 0xa0; // overlong
		if (lead === 0xed) max = 0x9f; // UTF-16 surrogates
	} else if (lead >= 0xf0 && lead <= 0xf4) {
		length = 4;
		if (lead === 0xf0) min = 0x90; // overlong
		if (lead === 0xf4) max = 0x8f; // above U+10FFFF
	} else return 0;
	for (let i = 1; i < length; i++) {
		const next = bytes[at + i];
		if (next === undefined || next < (i === 1 ? min : 0x80) || next > (i === 1 ? max : 0xbf)) return 0;
	}
	return length;
}

/** A name as read from the file system (bytes), as a string that maps back to the same bytes. */
export function nameFromBytes(bytes: Buffer): string {
	const text = bytes.toString('utf8');
	// No replacement character: every byte decoded (the common case, checked without a second pass).
	if (!text.includes('\ufffd')) return text;
	let out = '';
	let from = 0;
	let at = 0;
	while (at < bytes.length) {
		const length = sequenceLength(bytes, at);
		if (length > 0) {
			at += length;
			continue;
		}
		out += bytes.toString('utf8', from, at) + String.fromCharCode(LOW + (bytes[at] ?? 0));
		at += 1;
		from = at;
	}
	return out + bytes.toString('utf8', from);
}

/** The path to hand to node:fs: the string itself, or its exact bytes when a name in it was not UTF-8. */
export function fsPath(file: string): string | Buffer {
	if (!ESCAPED.test(file)) return file;
	const parts: Buffer[] = [];
	for (const char of file) {
		const code = char.codePointAt(0) ?? 0;
		const raw = char.length === 1 && code >= 0xdc80 && code <= 0xdcff;
		parts.push(raw ? Buffer.of(code - LOW) : Buffer.from(char, 'utf8'));
	}
	return Buffer.concat(parts);
}

/** For people: each byte that was not UTF-8 as `\xff` (a terminal would otherwise draw U+FFFD for it). */
export function shownName(text: string): string {
	return text.replace(ESCAPED_ALL, char => `\\x${(char.charCodeAt(0) - LOW).toString(16).padStart(2, '0')}`);
}
