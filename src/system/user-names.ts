import {readFileSync} from 'node:fs';

// Users' names by uid, as htop shows a process's owner: /etc/passwd, read once and again only when a uid is not in
// it (a user added since). A uid with no entry (a container's foreign user, LDAP without a local line) is its number.

/** uid → name from /etc/passwd's text (`name:x:uid:gid:…`); malformed lines are skipped. */
export function parsePasswd(text: string): Map<number, string> {
	const names = new Map<number, string>();
	for (const line of text.split('\n')) {
		const [name, , uid] = line.split(':');
		if (name && uid !== undefined && /^\d+$/.test(uid) && !names.has(Number(uid))) names.set(Number(uid), name);
	}
	return names;
}

/** Re-reading /etc/passwd for an unknown uid at most this often: a uid with no entry stays without one. */
const REREAD_MS = 60_000;

export class UserNames {
	readonly #path: string;
	readonly #now: () => number;
	#names: Map<number, string> | null = null;
	#readAt = Number.NEGATIVE_INFINITY;

	constructor(path = '/etc/passwd', now: () => number = Date.now) {
		this.#path = path;
		this.#now = now;
	}

	nameOf(uid: number): string {
		let name = this.#load(false).get(uid);
		if (name === undefined && this.#now() - this.#readAt >= REREAD_MS) name = this.#load(true).get(uid);
		return name ?? String(uid);
	}

	#load(again: boolean): Map<number, string> {
		if (this.#names === null || again) {
			this.#readAt = this.#now();
			try {
				this.#names = parsePasswd(readFileSync(this.#path, 'utf8'));
			} catch {
				this.#names = new Map();
			}
		}
		return this.#names;
	}
}
