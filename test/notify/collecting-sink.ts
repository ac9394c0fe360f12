import type {Notice, NoticeSink} from '../../src/notify/notice.js';

/** A real sink that keeps what it is sent (the notifier's contract: send never waits; close ends it). */
export class CollectingSink implements NoticeSink {
	readonly name: string;
	readonly notices: Notice[] = [];
	/** Epoch ms each notice arrived. */
	readonly arrived: number[] = [];
	closed = false;

	constructor(name = 'collect') {
		this.name = name;
	}

	send(notice: Notice): void {
		if (this.closed) throw new Error('sent after close');
		this.notices.push(notice);
		this.arrived.push(Date.now());
	}

	async close(): Promise<void> {
		this.closed = true;
	}

	/** `raised gpu1 level ram` per notice: what a test compares. */
	states(): string[] {
		return this.notices.map(n => `${n.state} ${n.episode}`);
	}
}
