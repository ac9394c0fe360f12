import {readFileSync} from 'node:fs';

// A TCP port for a test job's rendezvous (MASTER_PORT). Random ports in 30000–50000 overlapped Linux's ephemeral range
// (32768–60999), where every gloo rank listens and connects: with a dozen DDP jobs running at once, a torchrun once got
// a port a gloo rank held and waited silently for 120 s (CI). So: below the ephemeral range, and not one listed as
// listening in /proc/net/tcp{,6} right now.

const FIRST = 20_000;

function ephemeralStart(): number {
	try {
		const start = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
		return Number.isInteger(start) && start > FIRST + 1000 ? start : 32_768;
	} catch {
		return 32_768;
	}
}

/** Ports in the LISTEN state (0A), from /proc/net/tcp and tcp6. */
function listening(): Set<number> {
	const ports = new Set<number>();
	for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
		let text = '';
		try {
			text = readFileSync(table, 'utf8');
		} catch {
			continue;
		}
		for (const line of text.split('\n').slice(1)) {
			const [, local, , state] = line.trim().split(/\s+/);
			if (state === '0A' && local) ports.add(Number.parseInt(local.split(':').at(-1) ?? '', 16));
		}
	}
	return ports;
}

export function freePort(): number {
	const end = ephemeralStart();
	const taken = listening();
	for (let tries = 0; tries < 100; tries++) {
		const port = FIRST + Math.floor(Math.random() * (end - FIRST));
		if (!taken.has(port)) return port;
	}
	throw new Error(`no free port found in ${FIRST}–${end - 1}`);
}
