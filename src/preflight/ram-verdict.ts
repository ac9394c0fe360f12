import {rawLevel} from '../core/thresholds.js';
import type {HostMemory} from '../core/types.js';

// Will the DataLoader's RAM fit on this node? Judged as the monitor will judge the job once it runs: usage after
// launch (what is used now + the estimate) against the RAM threshold and its warn line, on the RAM the OOM killer
// counts — the cgroup's limit when traintop runs inside a limited one (a scheduler's job, a container), else the host's.

export type Verdict = 'fits' | 'tight' | 'will_not_fit';

/** The RAM the estimate must fit in. */
export interface RamBasis {
	readonly source: 'host' | 'cgroup';
	/** The cgroup's path when source is cgroup. */
	readonly cgroupPath: string | null;
	readonly totalBytes: number;
	readonly usedBytes: number;
	/** MemAvailable; under a cgroup limit, the room left in it (or MemAvailable when that is less). */
	readonly availableBytes: number;
}

export function ramBasis(memory: HostMemory): RamBasis {
	const {ram, cgroup} = memory;
	if (!cgroup) {
		return {
			source: 'host',
			cgroupPath: null,
			totalBytes: ram.totalBytes,
			usedBytes: ram.usedBytes,
			availableBytes: ram.availableBytes,
		};
	}
	const room = Math.max(0, cgroup.limitBytes - cgroup.usedBytes);
	return {
		source: 'cgroup',
		cgroupPath: cgroup.path,
		totalBytes: cgroup.limitBytes,
		usedBytes: cgroup.usedBytes,
		availableBytes: Math.min(room, ram.availableBytes),
	};
}

export interface RamThresholds {
	/** Critical, percent of the basis' total (--ram-threshold). */
	readonly criticalPercent: number;
	/** Warn begins this many points below it (--warn-margin). */
	readonly warnMargin: number;
}

export interface RamJudgement {
	readonly verdict: Verdict;
	/** Why, in words: which line the usage after launch reaches, or that it is more than is available. */
	readonly reason: string;
	/** used + estimate. */
	readonly afterBytes: number;
	readonly afterPercent: number;
	readonly warnPercent: number;
	/** Bytes between the usage after launch and the critical line (negative: over it). */
	readonly headroomBytes: number;
	/** Bytes left of what is available after the estimate (negative: it does not fit at all). */
	readonly roomBytes: number;
}

export function judgeRam(basis: RamBasis, estimateBytes: number, thresholds: RamThresholds): RamJudgement {
	const afterBytes = basis.usedBytes + estimateBytes;
	const afterPercent = basis.totalBytes > 0 ? (afterBytes / basis.totalBytes) * 100 : 100;
	const warnPercent = thresholds.criticalPercent - thresholds.warnMargin;
	const headroomBytes = Math.round((basis.totalBytes * thresholds.criticalPercent) / 100 - afterBytes);
	const roomBytes = basis.availableBytes - estimateBytes;
	const level = rawLevel(afterPercent, {
		critical: thresholds.criticalPercent,
		warnMargin: thresholds.warnMargin,
		hysteresis: 0,
	});
	const after = `${afterPercent.toFixed(1)}% after launch`;
	let verdict: Verdict;
	let reason: string;
	if (roomBytes < 0) {
		verdict = 'will_not_fit';
		reason = 'the estimate is more than the RAM available now';
	} else if (level === 'critical') {
		verdict = 'will_not_fit';
		reason = `${after}, at or above the ${thresholds.criticalPercent}% RAM threshold`;
	} else if (level === 'warn') {
		verdict = 'tight';
		reason = `${after}, above the warn line at ${warnPercent}%`;
	} else {
		verdict = 'fits';
		reason = `${after}, below the warn line at ${warnPercent}%`;
	}
	return {verdict, reason, afterBytes, afterPercent, warnPercent, headroomBytes, roomBytes};
}
