import type {SignalName} from '../../ranks/signals.js';
import type {GateBlock, ReadTask, StepView} from '../step-gate.js';

// The words of the srun and scancel routes' gate (slurm/step-gate.ts computes it): what each task read here does
// with the signal, why a step read nowhere blocks it, which step is left out, and the refusal.

function who(task: ReadTask): string {
	const name = task.rank === null ? `task ${task.task ?? '?'}` : `rank ${task.rank}`;
	return `${name} (pid ${task.pid}, step ${task.step})`;
}

function blockWords(block: GateBlock, signal: SignalName): string {
	if (block.kind === 'unread') {
		const {step} = block;
		const does = block.effect === 'stops' ? 'stop (hang the job)' : 'terminate';
		return `step ${step.id} (${step.tasks} task${step.tasks === 1 ? '' : 's'}) has no task on this node: their handling of ${signal} cannot be read here (--agents reads it on each node), and ${signal} would ${does} any that has no handler`;
	}
	const {task} = block;
	switch (block.effect) {
		case 'terminates':
			return `${who(task)} has no handler for ${signal}: the signal would terminate it`;
		case 'stops':
			return `${signal} would stop ${who(task)} until a SIGCONT, which hangs its job`;
		case 'ignored':
			return `${who(task)} ignores ${signal}: it would have no effect`;
		case 'pending':
			return `${who(task)} is stopped: ${signal} would stay pending and act only once it is continued (SIGCONT)`;
	}
}

/** A task that acts on the signal as asked: it handles it, or the signal is harmless to it. */
function actsWords(task: ReadTask, signal: SignalName): string {
	if (task.state.disposition === 'handled') return `handles ${signal}`;
	return task.state.disposition === 'ignored'
		? `ignores ${signal} (it continues it all the same)`
		: `${signal} is harmless to it`;
}

/** The refusal without --force: every block, and the way past. */
export function gateRefusal(blocks: readonly GateBlock[], signal: SignalName): string {
	return `${blocks.map(block => blockWords(block, signal)).join('; ')} (--force sends it anyway)`;
}

/** The preview: a line per task read here and per step read nowhere, each with what will happen. */
export function gatePreview(steps: readonly StepView[], blocks: readonly GateBlock[], signal: SignalName): string[] {
	const forced = (words: string) => `${words} — sent anyway (--force)`;
	const lines: string[] = [];
	for (const view of steps) {
		const unread = blocks.find(block => block.kind === 'unread' && block.step.id === view.step.id);
		if (unread) lines.push(forced(blockWords(unread, signal)));
		else if (view.read.length === 0)
			lines.push(`step ${view.step.id} (${view.step.tasks} tasks): none here; ${signal} is harmless without a handler`);
		for (const task of view.read) {
			const block = blocks.find(b => b.kind === 'task' && b.task.pid === task.pid);
			lines.push(block ? forced(blockWords(block, signal)) : `${who(task)}  ${actsWords(task, signal)}`);
		}
	}
	return lines;
}

/** The steps left out of the send: seen here, none of their tasks a rank of the job. */
export function leftOutNotes(views: readonly StepView[]): string[] {
	return views
		.filter(view => view.notRanks !== null)
		.map(
			view =>
				`step ${view.step.id} is not signalled: none of its tasks is a rank of the job (${view.notRanks!.join('; ')})`,
		);
}
