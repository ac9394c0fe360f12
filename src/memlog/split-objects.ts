// Splits a stream of text into top-level JSON objects by balanced braces, aware of strings and
// escapes: JSON Lines, pretty-printed objects one after another (with or without a separator),
// and the elements of a top-level array. Fed line by line (a very long line may come in pieces),
// it keeps only the object being assembled, so memory stays bounded by the largest record.
//
// Resynchronisation, so one broken record never swallows the ones after it:
// - a raw newline inside a string (JSON forbids it) ends the object as malformed;
// - a line that starts in column 0 with anything but `}` or `]` (pretty printers indent what is
//   nested), or whose first non-blank character is `{` while the innermost open container is an
//   object, starts afresh: the open object is malformed;
// - anything else at top level is garbage up to the end of its line, and so is `{…}junk`: one skip
//   per line.

export interface SplitSink {
	/** A complete top-level `{…}`, starting on `line` (1-based). Not yet parsed. */
	object(text: string, line: number): void;
	/** Input that is no record, with a short reason. */
	bad(line: number, reason: string): void;
}

const IDLE = 0;
const OBJECT = 1;
const GARBAGE = 2;
const DISCARD = 3;
/** An object just closed; what follows on its line decides whether it stands. */
const CLOSED = 4;

const MAX_RECORD_CHARS = 16 * 1024 * 1024;
const GARBAGE_KEEP = 200;

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

function isSpace(c: number): boolean {
	return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a || c === 0xfeff;
}

/** The reason a piece of top-level text is no record. */
function garbageReason(text: string): string {
	const t = text.trim();
	try {
		const v: unknown = JSON.parse(t);
		return `not an object: ${describe(v)}`;
	} catch (error) {
		return `not JSON: ${(error as Error).message}`;
	}
}

export function describe(v: unknown): string {
	if (v === null) return 'null';
	if (Array.isArray(v)) return 'array';
	return typeof v;
}

export class ObjectSplitter {
	readonly #sink: SplitSink;
	/** The line being fed (1-based). */
	#line = 1;
	#state = IDLE;
	#started = false;
	#arrayMode = false;
	/** Open containers of the object being assembled (char codes). */
	#stack: number[] = [];
	#inString = false;
	#escape = false;
	#parts: string[] = [];
	#partsLen = 0;
	#startLine = 0;
	#garbage = '';
	#garbageLine = 0;
	#closedText = '';
	#closedLine = 0;
	/** Nothing but blanks seen on the current line yet. */
	#lineStart = true;
	/** Nothing at all fed for the current line yet. */
	#col0 = true;

	constructor(sink: SplitSink) {
		this.#sink = sink;
	}

	get line(): number {
		return this.#line;
	}

	/** No object or garbage in progress: the next line may be handled by a fast path. */
	get idle(): boolean {
		return this.#state === IDLE;
	}

	/** A line handled by a fast path (a complete object starting with `{`): just count it. */
	skipLine(): void {
		this.#started = true;
		this.#line++;
	}

	/** A piece of the current line, without its newline. */
	feed(s: string): void {
		const n = s.length;
		let i = 0;
		let seg = 0; // start of the current object's text in s
		while (i < n) {
			const state = this.#state;
			if (state === OBJECT) {
				// Scan for the next significant character.
				let c = 0;
				if (this.#lineStart) {
					while (i < n && isSpace(s.charCodeAt(i))) i++;
					if (i >= n) break;
					c = s.charCodeAt(i);
					this.#lineStart = false;
					const col0 = this.#col0 && i === 0;
					if (
						(col0 && c !== CLOSE_BRACE && c !== CLOSE_BRACKET) ||
						(c === OPEN_BRACE && this.#stack[this.#stack.length - 1] === OPEN_BRACE)
					) {
						this.#sink.bad(this.#startLine, 'not JSON: unterminated object');
						this.#resetObject();
						this.#state = IDLE;
						this.#lineStart = true; // re-handle this character as the start of a record
						continue;
					}
				}
				this.#col0 = false;
				for (; i < n; i++) {
					c = s.charCodeAt(i);
					if (this.#inString) {
						if (this.#escape) this.#escape = false;
						else if (c === BACKSLASH) this.#escape = true;
						else if (c === QUOTE) this.#inString = false;
					} else if (c === QUOTE) {
						this.#inString = true;
					} else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
						this.#stack.push(c);
					} else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
						this.#stack.pop();
						if (this.#stack.length === 0) break;
					}
				}
				if (i < n) {
					// The object closed at i.
					const last = s.slice(seg, i + 1);
					const text = this.#parts.length === 0 ? last : this.#parts.join('') + last;
					this.#closedLine = this.#startLine;
					this.#closedText = text;
					this.#resetObject();
					this.#state = CLOSED;
					i++;
				} else {
					this.#append(s.slice(seg));
				}
				continue;
			}
			if (state === GARBAGE) {
				if (this.#garbage.length < GARBAGE_KEEP) this.#garbage += s.slice(i, i + GARBAGE_KEEP - this.#garbage.length);
				break;
			}
			if (state === DISCARD) break;
			if (state === CLOSED) {
				const c = s.charCodeAt(i);
				if (isSpace(c)) {
					i++;
					continue;
				}
				if (c === OPEN_BRACE || (this.#arrayMode && (c === COMMA || c === CLOSE_BRACKET))) {
					this.#emitClosed();
					continue;
				}
				// `{…}junk`: the line is corrupt, one skip for all of it.
				this.#sink.bad(this.#closedLine, 'not JSON: unexpected text after the object');
				this.#closedText = '';
				this.#state = DISCARD;
				break;
			}
			// IDLE
			const c = s.charCodeAt(i);
			if (isSpace(c)) {
				i++;
				continue;
			}
			this.#lineStart = false;
			this.#col0 = false;
			if (!this.#started) {
				this.#started = true;
				if (c === OPEN_BRACKET) {
					this.#arrayMode = true;
					i++;
					continue;
				}
			}
			if (c === OPEN_BRACE) {
				this.#state = OBJECT;
				this.#startLine = this.#line;
				this.#stack.push(c);
				seg = i;
				i++;
				if (i >= n) this.#append(s.slice(seg));
				continue;
			}
			if (this.#arrayMode && (c === COMMA || c === CLOSE_BRACKET)) {
				i++;
				continue;
			}
			this.#state = GARBAGE;
			this.#garbageLine = this.#line;
			this.#garbage = '';
		}
		if (n > 0) this.#col0 = false;
	}

	/** The end of the current line. */
	endLine(): void {
		if (this.#state === OBJECT) {
			if (this.#inString) {
				this.#sink.bad(this.#startLine, 'not JSON: unterminated string');
				this.#resetObject();
				this.#state = IDLE;
			} else {
				this.#append('\n');
			}
		} else if (this.#state === GARBAGE) {
			this.#flushGarbage();
		} else if (this.#state === DISCARD) {
			this.#state = IDLE;
		} else if (this.#state === CLOSED) {
			this.#emitClosed();
		}
		this.#line++;
		this.#lineStart = true;
		this.#col0 = true;
	}

	/** The end of the input. */
	finish(): void {
		if (this.#state === OBJECT) {
			this.#sink.bad(this.#startLine, 'truncated at end of file');
			this.#resetObject();
		} else if (this.#state === GARBAGE) {
			this.#flushGarbage();
		} else if (this.#state === CLOSED) {
			this.#emitClosed();
		}
		this.#state = IDLE;
	}

	#emitClosed(): void {
		const text = this.#closedText;
		this.#closedText = '';
		this.#state = IDLE;
		this.#sink.object(text, this.#closedLine);
	}

	#flushGarbage(): void {
		this.#sink.bad(this.#garbageLine, garbageReason(this.#garbage));
		this.#garbage = '';
		this.#state = IDLE;
	}

	#append(s: string): void {
		this.#parts.push(s);
		this.#partsLen += s.length;
		if (this.#partsLen > MAX_RECORD_CHARS) {
			this.#sink.bad(this.#startLine, `record larger than ${MAX_RECORD_CHARS / 1024 / 1024} MiB`);
			this.#resetObject();
			this.#state = DISCARD;
		}
	}

	#resetObject(): void {
		this.#stack.length = 0;
		this.#inString = false;
		this.#escape = false;
		this.#parts = [];
		this.#partsLen = 0;
	}
}
