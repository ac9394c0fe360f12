import {type Level, LEVEL_RANK} from '../core/level.js';
import {escalatedLine, noticeLine, resolvedLine} from '../format/notice-text.js';
import type {Notice} from './notice.js';
import type {NoticeSignal} from './signal.js';

// One message per episode, never a storm. A raise opens an episode and is told; a clear starts the cool-down, and a
// raise of the same episode inside it continues the episode silently (a metric that flaps across its line is one
// episode); once the condition stayed clear for the whole cool-down, one `resolved` is told. Something told once (a
// rank's exit) is told once per cool-down: eight ranks that die together are one notice. Pure: the caller feeds
// signals and its clock (`now`, epoch ms) and sends what comes back.

/** Episodes kept at most (open, cooling, or folding a once-kind): past it the oldest is forgotten. */
export const MAX_EPISODES = 4096;

interface Episode {
	readonly raise: NoticeSignal;
	readonly once: boolean;
	/** The highest level told. */
	level: Level;
	/** Epoch ms the episode began (its raise's time). */
	readonly since: number;
	/** Returns inside the cool-down folded into it. */
	repeats: number;
	/** The caller's clock when the cool-down began; null while the condition holds. */
	coolingSince: number | null;
	/** What began the cool-down, for the resolve's words and record. */
	clear: NoticeSignal | null;
}

export class Episodes {
	readonly #cooldownMs: number;
	readonly #episodes = new Map<string, Episode>();

	/** `cooldownS`: --notify-cooldown; 0 resolves at the first clear and folds nothing. */
	constructor(cooldownS: number) {
		this.#cooldownMs = cooldownS * 1000;
	}

	/** Episodes held now (open, cooling down, or folding a once-kind's repeats). */
	get size(): number {
		return this.#episodes.size;
	}

	/** The notices one signal gives (none, or one). */
	feed(signal: NoticeSignal, now: number): Notice[] {
		switch (signal.kind) {
			case 'raise':
				return this.#raise(signal, now);
			case 'clear':
				return this.#clear(this.#episodes.get(signal.key), signal, now);
			case 'once':
				return this.#once(signal, now);
			case 'job-gone':
				return [...this.#episodes.values()]
					.filter(e => !e.once && e.coolingSince === null && e.raise.host === signal.host && e.raise.job === signal.job)
					.flatMap(e => this.#clear(e, signal, now));
		}
	}

	/** The resolves whose cool-down ended by `now`; once-kinds whose fold window ended are forgotten. */
	tick(now: number): Notice[] {
		const notices: Notice[] = [];
		for (const [key, episode] of this.#episodes) {
			if (episode.coolingSince === null || now - episode.coolingSince < this.#cooldownMs) continue;
			this.#episodes.delete(key);
			if (!episode.once) notices.push(resolved(episode, now));
		}
		return notices;
	}

	#raise(signal: NoticeSignal, now: number): Notice[] {
		const episode = this.#episodes.get(signal.key);
		if (episode === undefined || episode.once) {
			this.#keep({
				raise: signal,
				once: false,
				level: signal.level,
				since: signal.time,
				repeats: 0,
				coolingSince: null,
				clear: null,
			});
			return [notice(signal, 'raised', signal.time, 0, noticeLine(signal.host, signal.words))];
		}
		if (episode.coolingSince !== null) {
			episode.repeats += 1;
			episode.coolingSince = null;
			episode.clear = null;
		}
		if (LEVEL_RANK[signal.level] <= LEVEL_RANK[episode.level]) return [];
		// Higher than told (WARN, now CRIT): said once, in the same episode.
		const was = episode.level;
		episode.level = signal.level;
		const text = escalatedLine(signal.host, signal.words, was, episode.since, now);
		return [notice(signal, 'raised', episode.since, episode.repeats, text)];
	}

	#clear(episode: Episode | undefined, signal: NoticeSignal, now: number): Notice[] {
		if (episode === undefined || episode.once) return [];
		episode.clear = signal;
		episode.coolingSince ??= now;
		return this.#cooldownMs === 0 ? this.tick(now) : [];
	}

	#once(signal: NoticeSignal, now: number): Notice[] {
		const episode = this.#episodes.get(signal.key);
		if (episode?.once && episode.coolingSince !== null && now - episode.coolingSince < this.#cooldownMs) {
			episode.repeats += 1;
			return [];
		}
		if (this.#cooldownMs > 0)
			this.#keep({
				raise: signal,
				once: true,
				level: signal.level,
				since: signal.time,
				repeats: 0,
				coolingSince: now,
				clear: null,
			});
		return [notice(signal, 'once', signal.time, 0, noticeLine(signal.host, signal.words))];
	}

	#keep(episode: Episode): void {
		this.#episodes.delete(episode.raise.key);
		this.#episodes.set(episode.raise.key, episode);
		// Bounded: nodes and jobs that come and go (and episodes they never closed) cannot grow it without end.
		if (this.#episodes.size > MAX_EPISODES) this.#episodes.delete(this.#episodes.keys().next().value!);
	}
}

function notice(signal: NoticeSignal, state: 'raised' | 'once', since: number, repeats: number, text: string): Notice {
	return {
		state,
		episode: signal.key,
		level: signal.level,
		time: signal.time,
		since,
		repeats,
		host: signal.host,
		job: signal.job,
		record: signal.record ?? {},
		text,
	};
}

function resolved(episode: Episode, now: number): Notice {
	const {raise} = episode;
	const clear = episode.clear ?? raise;
	return {
		state: 'resolved',
		episode: raise.key,
		level: 'ok',
		time: clear.time,
		since: episode.since,
		repeats: episode.repeats,
		host: raise.host,
		job: raise.job,
		record: clear.record ?? raise.record ?? {},
		text: resolvedLine(raise.host, clear.words, episode, now),
	};
}
