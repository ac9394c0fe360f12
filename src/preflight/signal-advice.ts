import type {SignalName} from '../ranks/signals.js';

// Whether the ranks will handle the save and emergency signals is only known once they run (traintop reads each
// rank's handlers from /proc). Before launch, preflight says what to check instead.

export function signalAdvice(saveSignal: SignalName, emergencySignal: SignalName): string[] {
	const warning = emergencySignal.replace(/^SIG/, '');
	return [
		`whether the ranks handle ${saveSignal} (save) and ${emergencySignal} (emergency) is known only once they run: \`traintop ranks\` then shows each rank's handlers`,
		'a Python loop: install the handlers of examples/python/traintop_signals.py (SIGUSR1 saves and goes on, SIGTERM saves and exits 99)',
		`under SLURM: put \`#SBATCH --signal=${warning}@120\` in the batch script (a --signal on the sbatch command line shows nowhere); not \`B:${warning}\`, which signals the batch shell, not the ranks`,
	];
}
