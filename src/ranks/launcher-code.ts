import type {ProcReader} from '../system/procfs.js';
import {TORCH_CODE_MARKS} from './launcher-torch.js';

// Which of a launcher's variables its installed code reads: a torch before pytorch PR #172596 ignores
// TORCH_ELASTIC_SHUTDOWN_TIMEOUT, one after waits that long. The version number would need a table of releases;
// the code itself says it: the torch package the launcher runs is found in its memory map (its compiled core,
// torch/_C….so) and its source files are read as the process sees them (/proc/PID/root: its mount namespace, a
// container's files). Read only when such a variable is set, once per launcher (launcher-process.ts keeps it).

/** The torch package directory the process has mapped; null when it runs no torch (or a path traintop cannot read). */
function torchDir(maps: string): string | null {
	return /\s(\/\S*\/torch)\/_C\.[^\s/]*\.so$/m.exec(maps)?.[1] ?? null;
}

/** Of `variables`, those the launcher's torch reads; null when its code could not be read. */
export function torchReads(proc: ProcReader, pid: number, variables: readonly string[]): string[] | null {
	const maps = proc.file?.(pid, 'maps') ?? null;
	const dir = maps === null ? null : torchDir(maps);
	if (dir === null) return null;
	const sources = new Map<string, string | null>();
	const source = (file: string): string | null => {
		if (!sources.has(file)) sources.set(file, proc.file?.(pid, `root${dir}/${file}`) ?? null);
		return sources.get(file) ?? null;
	};
	const reads: string[] = [];
	for (const name of variables) {
		const mark = TORCH_CODE_MARKS[name];
		if (mark === undefined) continue;
		const text = source(mark.file);
		if (text === null) return null;
		if (text.includes(mark.text)) reads.push(name);
	}
	return reads;
}
