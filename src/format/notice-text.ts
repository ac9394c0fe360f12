import type {Alert, Level} from '../core/types.js';
import type {Readiness} from '../core/readiness-types.js';
import {alertWords} from './alert-words.js';
import {LEVEL_WORD} from './levels.js';
import {printable} from './printable.js';
import {readinessText} from './readiness.js';
import {localTimeShort} from './time.js';
import {formatPercent} from './units.js';

// A notice's `text`: one line, complete on its own, naming the node — what a phone's lock screen or a Slack channel
// shows without the JSON around it. The words of what happened are the ones the views already say (the alert line,
// the event's own text, the readiness verdict); this file adds the node, the episode's state and its history.

/** `CRIT rank 3 (pid 4242) of torchrun:4200 died of SIGKILL`: the level word only where it needs attention. */
export function levelWords(level: Level, text: string): string {
	return `${level === 'ok' ? '' : `${LEVEL_WORD[level]} `}${printable(text)}`;
}

/** `CRIT ram at 91.0%: at or above the 85% threshold`. */
export function levelChangeWords(alert: Alert, warnMargin: number): string {
	return `${LEVEL_WORD[alert.to]} ${alertWords(alert, warnMargin)}`;
}

/** `ram back to 70.2%`: the change that ended (or began to end) a metric's episode. */
export function levelClearWords(alert: Alert): string {
	return `${alert.metric} back to ${formatPercent(alert.value)}`;
}

/** `CRIT readiness torchrun:4200: not-ready — rank 3 (pid 4242) has no SIGTERM handler: it dies unsaved`. */
export function readinessWords(readiness: Readiness, now: number): string {
	const level: Level = readiness.verdict === 'not-ready' ? 'critical' : 'ok';
	return levelWords(level, `readiness ${readiness.job}: ${readinessText(readiness, now)}`);
}

/** `job torchrun:4200 is gone`: what ends an episode of a job that ended while it was open. */
export function jobGoneWords(job: string): string {
	return `job ${printable(job)} is gone`;
}

/** `gpu1: CRIT ram at 91.0%: at or above the 85% threshold`. */
export function noticeLine(host: string, words: string): string {
	return `${printable(host)}: ${words}`;
}

/** `gpu1: now CRIT ram at 93.0%: … (WARN since 14:02:11)`: an open episode climbed a level; said once. */
export function escalatedLine(host: string, words: string, was: Level, since: number, now: number): string {
	return `${printable(host)}: now ${words} (${LEVEL_WORD[was]} since ${localTimeShort(since, now)})`;
}

/** `gpu1: resolved: ram back to 70.2% (CRIT since 14:02:11, 3 returns inside the cool-down)`. */
export function resolvedLine(
	host: string,
	words: string,
	episode: {readonly level: Level; readonly since: number; readonly repeats: number},
	now: number,
): string {
	const {level, since, repeats} = episode;
	const returns = repeats === 0 ? '' : `, ${repeats} return${repeats === 1 ? '' : 's'} inside the cool-down`;
	return `${printable(host)}: resolved: ${words} (${LEVEL_WORD[level]} since ${localTimeShort(since, now)}${returns})`;
}
