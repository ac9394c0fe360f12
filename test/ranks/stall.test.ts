import {expect, test} from 'vitest';
import {nextStall, RESUME_SAMPLES, type StallState} from '../../src/ranks/stall.js';

/** Runs a CPU-tick pattern through nextStall, one sample a second; returns the stalled flag after each. */
function run(pattern: readonly boolean[], stallAfterMs: number, states: readonly string[] = []): boolean[] {
	let state: StallState | undefined;
	let ticks = 0;
	return pattern.map((busy, i) => {
		if (busy) ticks += 10;
		state = nextStall(state, {ticks, state: states[i] ?? 'S', now: i * 1000}, stallAfterMs);
		return state.stalled;
	});
}

test('stalled after the window without CPU time, not before', () => {
	const flags = run([true, false, false, false, false], 3000);
	// CPU time last advanced at 0 s; at 3 s the 3 s window has passed.
	expect(flags).toEqual([false, false, false, true, true]);
});

test(`running again only after CPU time advanced on ${RESUME_SAMPLES} samples in a row`, () => {
	const idle = Array<boolean>(5).fill(false);
	const flags = run([true, ...idle, true, true, false, true, true, true], 3000);
	// Stalled from sample 3; one or two busy samples do not end it; three in a row do.
	expect(flags.slice(4)).toEqual([true, true, true, true, true, true, true, false]);
});

test('a busy/idle pattern (1 busy, 4 idle) over two minutes: stalled once, never flapping', () => {
	const pattern = Array.from({length: 120}, (_, i) => i % 5 === 0);
	const flags = run(pattern, 3000);
	const changes = flags.filter((flag, i) => i > 0 && flag !== flags[i - 1]).length;
	expect(flags.at(-1)).toBe(true);
	expect(changes).toBe(1);
});

test('only R and S stall: D (disk wait) and T (stopped, reported as such) do not', () => {
	expect(run([true, false, false, false, false], 3000, ['S', 'D', 'D', 'D', 'D']).at(-1)).toBe(false);
	expect(run([true, false, false, false, false], 3000, ['S', 'T', 'T', 'T', 'T']).at(-1)).toBe(false);
});
