import type {ProcReader} from '../system/procfs.js';

// The kernel's page size, which /proc/PID/stat's resident count (field 24) is in. Node has no sysconf; it is read off
// traintop's own process instead: its status says VmRSS in kB and its stat the same count in pages (both are the
// kernel's one mm counter, get_mm_rss), so their ratio is the page size — 4 KiB on x86-64, 4, 16 or 64 KiB on arm64
// and ppc64le, where assuming 4 KiB would make every worker 4 or 16 times too small.

const SIZES = [4096, 16_384, 65_536] as const;

/** The page size whose count matches VmRSS best; 4096 when either read fails (a fixture tree without traintop). */
export function pageSizeOf(proc: ProcReader, pid: number = process.pid): number {
	const stat = proc.stat(pid);
	const rss = proc.status(pid)?.vmRssBytes ?? null;
	if (!stat || rss === null || stat.rssPages <= 0) return 4096;
	// The two reads are microseconds apart: a page or two of growth between them moves the ratio by far less than 4×.
	const ratio = rss / stat.rssPages;
	return SIZES.reduce((best, size) =>
		Math.abs(Math.log2(size / ratio)) < Math.abs(Math.log2(best / ratio)) ? size : best,
	);
}
