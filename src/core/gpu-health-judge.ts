import {gpuHealthAlertText, gpuHealthClearedText} from '../format/gpu-health.js';
import {gpuHealthProblems, type GpuHealthCode, type GpuHealthProblem} from './gpu-health.js';
import type {JobEvent} from './job-types.js';
import type {GpuReading, GpuState} from './types.js';

// A GPU's health problems as alerts: `gpu-health` job events (`job: null`: a GPU's health is the node's, whatever job
// runs on it), one per episode. A problem must hold for ENTER_SAMPLES device samples before it is raised and be clear
// for CLEAR_SAMPLES before it is resolved, so that a throttle reason that comes and goes at each sample is one alert,
// not one a second. Samples, not ticks: the reader's sample (its `sampledAt`) is judged once, however many ticks see it.

/** Two samples in a row: one sample's flag is not yet an episode. */
export const ENTER_SAMPLES = 2;
/** Clear this many samples in a row before an episode ends (5 s at the default 1 s). */
export const CLEAR_SAMPLES = 5;
/**
 * Corrected ECC errors are "rising" while the count is above what it was this many samples ago (a minute at 1 s):
 * one burst of corrections is one episode, however the errors fall across samples.
 */
export const RISE_WINDOW_SAMPLES = 60;

interface Episode {
	on: boolean;
	/** Samples in a row it held (while off) or was clear (while on). */
	streak: number;
	problem: GpuHealthProblem;
}

interface GpuTrack {
	readonly episodes: Map<GpuHealthCode, Episode>;
	/** The corrected-error counts of the last RISE_WINDOW_SAMPLES samples, oldest first. */
	readonly corrected: number[];
}

const gpuKey = (reading: GpuReading): string => reading.uuid ?? `index ${reading.index}`;

export class GpuHealthJudge {
	readonly #gpus = new Map<string, GpuTrack>();
	#lastSampledAt: number | null = null;

	/** The events of this tick: raised and resolved episodes, for each GPU whose reading carries health. */
	judge(gpu: GpuState, time: number): JobEvent[] {
		if (gpu.status !== 'ok' || gpu.sampledAt === this.#lastSampledAt) return [];
		this.#lastSampledAt = gpu.sampledAt;
		return gpu.gpus.flatMap(reading => (reading.health ? this.#judgeGpu(reading, time) : []));
	}

	#judgeGpu(reading: GpuReading, time: number): JobEvent[] {
		const key = gpuKey(reading);
		let track = this.#gpus.get(key);
		if (track === undefined) {
			track = {episodes: new Map(), corrected: []};
			this.#gpus.set(key, track);
		}
		const now = new Map<GpuHealthCode, GpuHealthProblem>();
		for (const problem of gpuHealthProblems(reading.health)) if (problem.level !== 'ok') now.set(problem.code, problem);
		const rising = correctedRising(track.corrected, reading.health?.eccCorrected ?? null);
		if (rising !== null) now.set('ecc-corrected-rising', rising);

		const events: JobEvent[] = [];
		const event = (level: JobEvent['level'], text: string): JobEvent => ({
			time,
			kind: 'gpu-health',
			job: null,
			rank: null,
			pid: null,
			level,
			text,
			gpu: reading.index,
		});
		for (const code of new Set([...track.episodes.keys(), ...now.keys()])) {
			const problem = now.get(code);
			const episode = track.episodes.get(code) ?? {on: false, streak: 0, problem: problem!};
			track.episodes.set(code, episode);
			if (problem !== undefined) {
				episode.problem = problem;
				episode.streak = episode.on ? 0 : episode.streak + 1;
				if (!episode.on && episode.streak >= ENTER_SAMPLES) {
					episode.on = true;
					episode.streak = 0;
					events.push(event(problem.level, gpuHealthAlertText(reading.index, problem)));
				}
			} else if (!episode.on) {
				track.episodes.delete(code);
			} else if (++episode.streak >= CLEAR_SAMPLES) {
				track.episodes.delete(code);
				events.push(event('ok', gpuHealthClearedText(reading.index, episode.problem)));
			}
		}
		return events;
	}
}

/** Records `count` in the window and says whether it is above the window's oldest count; null when not (or unknown). */
function correctedRising(window: number[], count: number | null): GpuHealthProblem | null {
	if (count === null) return null;
	// A count lower than the last: the driver reloaded and the volatile counter started again.
	if (count < (window.at(-1) ?? count)) window.length = 0;
	window.push(count);
	if (window.length > RISE_WINDOW_SAMPLES) window.shift();
	return count > (window[0] ?? count) ? {code: 'ecc-corrected-rising', level: 'warn', count} : null;
}
