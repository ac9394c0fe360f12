// Notices when traintop itself did not run: stopped (SIGSTOP, Ctrl-Z), the machine suspended, or its event loop
// blocked. A heartbeat timer is due every BEAT_MS; one that comes much later than that measures the gap on the
// monotonic clock. Said so that a gap in the samples is put on traintop, not on nvidia-smi or the job, which went
// on meanwhile.

const BEAT_MS = 500;
/** Shorter gaps are a busy machine's ordinary lateness; the GPU loop's staleness window is 5 s at the least. */
const REPORT_AFTER_MS = 5_000;

export interface Pause {
	/** How long traintop did not run, in ms. */
	readonly ms: number;
	/** Epoch ms when it ran again. */
	readonly at: number;
}

/** Calls `onPause` after each pause of REPORT_AFTER_MS or more; returns the function that stops watching. */
export function watchPauses(onPause: (pause: Pause) => void): () => void {
	let last = performance.now();
	const timer = setInterval(() => {
		const now = performance.now();
		const gapMs = now - last - BEAT_MS;
		last = now;
		if (gapMs >= REPORT_AFTER_MS) onPause({ms: gapMs, at: Date.now()});
	}, BEAT_MS);
	// Watching must not keep traintop alive by itself.
	timer.unref();
	return () => clearInterval(timer);
}
