import {setFlagsFromString} from 'node:v8';

/**
 * The monitor (TUI, headless, demo) runs for days, a sample and a frame a second. V8 doubles its young generation
 * whenever a scavenge finds much alive, up to 2 × 16 MB kept resident; here it stays at its first size (1 MB a
 * semi-space). Measured on 8 GPUs + 8 ranks + 50 checkpoints at 1 s: the TUI at 120×40 peaks at 107 MB rather
 * than 139 (4 min, same run) for about +0.15 % of a core; headless at 69 MB rather than 79, CPU unchanged.
 * Loading the monitor's ~800 modules is the peak of its life: for its first seconds V8 also favours size over
 * speed (its heap grows by smaller steps), which takes the TUI's start-up peak from ~108 to ~95 MB; left on, it
 * would cost ~0.4 % of a core for good. V8 reads both at each decision, so they work set here, before the modules
 * load; `--max-semi-space-size` would have to be on node's command line, which a shebang cannot portably give.
 * `--analyze` keeps V8's defaults: it allocates hard for seconds, not a little for days.
 */
export function monitorHeap(): void {
	setFlagsFromString('--semi-space-growth-factor=1');
	setFlagsFromString('--optimize-for-size');
	setTimeout(() => setFlagsFromString('--no-optimize-for-size'), STARTUP_MS).unref();
}
const STARTUP_MS = 10_000;

/**
 * Many nodes: the viewer parses every node's snapshot (64 nodes at 1 s: ~540 KB of JSON a second) and keeps each
 * until the next, a second later. In a 1 MB semi-space that second outlives two scavenges: each snapshot was
 * copied twice and promoted, ~19 scavenges a second. V8's own growth (up to 16 MB) lets them die young, for
 * ~30 MB more resident. The 80 MB budget is the one-node TUI's; the agents keep the small young generation.
 */
export function manyNodesHeap(): void {
	setFlagsFromString('--semi-space-growth-factor=2');
}
