import {readFileSync} from 'node:fs';

// /proc's clock: start and CPU times are in ticks since boot; the sampler turns them into epoch ms and ms of CPU.

/** Linux reports CPU times and start times in USER_HZ, which is 100 on every architecture it runs on. */
export const CLOCK_TICKS_PER_SECOND = 100;

/** Boot time from /proc/stat's btime line; 0 if unreadable (start times are then relative). */
export function readBootTimeMs(procRoot = '/proc'): number {
	try {
		const match = /^btime (\d+)$/m.exec(readFileSync(`${procRoot}/stat`, 'utf8'));
		return match ? Number(match[1]) * 1000 : 0;
	} catch {
		return 0;
	}
}
