import type {SignalName} from '../ranks/signals.js';
import {schedulers} from '../scheduler/registry.js';

// Whether the ranks will handle the save and emergency signals is only known once they run (traintop reads each
// rank's handlers from /proc). Before launch, preflight says what to check instead.

export function signalAdvice(saveSignal: SignalName, emergencySignal: SignalName): string[] {
	const warning = emergencySignal.replace(/^SIG/, '');
	return [
		`whether the ranks handle ${saveSignal} (save) and ${emergencySignal} (emergency) is known only once they run: \`traintop ranks\` then shows each rank's handlers`,
		'a Python loop: install the handlers of examples/python/traintop_signals.py (SIGUSR1 saves and goes on, SIGTERM saves and exits 99)',
		// Each scheduler's own way of having the warning sent ahead of the end.
		...schedulers().flatMap(entry => entry.signalAdvice?.(warning) ?? []),
	];
}
