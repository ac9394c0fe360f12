// How a long-running mode stops: SIGINT, SIGTERM or SIGHUP aborts the returned signal (the mode closes its session
// and writes its last words); a second one means "now" (exitNow: cli.ts owns process.exit, the exit hooks still run).

export function stopOnSignals(exitNow: () => void): AbortSignal {
	const stop = new AbortController();
	let signals = 0;
	const onSignal = () => {
		if (++signals > 1) exitNow();
		stop.abort();
	};
	for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(name, onSignal);
	return stop.signal;
}
