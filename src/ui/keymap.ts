// Every key of the TUI, in one table: the input handler resolves keys here, the help overlay and
// the key bar are drawn from it, and --readonly filters it. Nothing else decides what a key does.

import type {Action, Binding, KeyInfo, KeyMode} from './key-types.js';

export type {Action, Binding, KeyInfo, KeyMode, Mode} from './key-types.js';

const is =
	(...chars: string[]) =>
	(input: string) =>
		chars.includes(input);
/** Esc, or n ("no") in a box: both close it without acting. */
const isEscape = (input: string, key: KeyInfo): boolean => key.escape === true || (input === 'n' && !key.ctrl);
const CLOSE_DESCRIPTION = 'close the box (in a confirm: cancel, nothing is sent)';

export const KEYMAP: readonly Binding[] = [
	// q quits from the main screen only: in a box it closes the box (a user leaving help with q must not lose the
	// app, and in `traintop demo` the job with it). Ctrl-C quits from any box but a confirm.
	{
		action: 'quit',
		modes: ['main', 'nodes'],
		keys: 'q',
		description: 'quit (the job is not touched); in a box: close it',
		bar: 'quit',
		matches: is('q'),
	},
	{
		action: 'quit',
		modes: ['main', 'help', 'analysis', 'result', 'detail', 'nodes'],
		keys: 'Ctrl-C',
		description: 'quit (the job is not touched)',
		matches: (input, key) => key.ctrl === true && input === 'c',
	},
	// A node's view under the many-node screen: Esc goes back to the nodes (the boxes' Esc comes first, in their modes).
	{
		action: 'back',
		modes: ['main'],
		keys: 'Esc',
		description: "in a node's view: back to the nodes",
		bar: 'nodes',
		fleet: true,
		matches: (_, key) => key.escape === true,
	},
	{
		action: 'open-node',
		modes: ['nodes'],
		keys: 'Enter',
		description: 'open the node under the cursor: its own full view (memory, history, ranks, checkpoints, alerts)',
		bar: 'open',
		fleet: true,
		matches: (_, key) => key.return === true,
	},
	// Raw mode turns Ctrl-Z into a key: it does what the terminal would have done, in every mode (a box stays open).
	{
		action: 'suspend',
		modes: ['main', 'confirm', 'result', 'help', 'analysis', 'detail', 'nodes'],
		keys: 'Ctrl-Z',
		description: 'suspend to the shell (fg brings traintop back)',
		matches: (input, key) => key.ctrl === true && input === 'z',
	},
	{
		action: 'save',
		// On the nodes (traintop --hosts): the cursor node's job on every node it runs on (state-nodes.ts).
		modes: ['main', 'nodes'],
		keys: 's',
		description:
			"save: send the save signal to the cursor's job: its marked ranks (all when none is marked), after a confirm",
		bar: 'save',
		acts: true,
		matches: is('s'),
	},
	{
		action: 'emergency',
		// On the nodes (traintop --hosts): the cursor node's job on every node it runs on (state-nodes.ts).
		modes: ['main', 'nodes'],
		keys: 'e',
		description:
			"emergency checkpoint: send the emergency signal to the cursor's job (save and exit for requeue), after a confirm",
		bar: 'emergency',
		acts: true,
		matches: is('e'),
	},
	{
		action: 'drill',
		modes: ['main'],
		keys: 'd',
		description:
			"drill: send the save signal to the cursor's job as s does, time its checkpoint, then say the readiness verdict with it",
		bar: 'drill',
		acts: true,
		matches: is('d'),
	},
	{
		action: 'mark',
		modes: ['main'],
		keys: 'space',
		description: 'mark or unmark the rank under the cursor as a target (a rank of another job replaces the marks)',
		bar: 'mark',
		matches: is(' '),
	},
	{
		action: 'close',
		modes: ['help', 'analysis', 'result', 'detail'],
		keys: 'Esc  q',
		description: CLOSE_DESCRIPTION,
		bar: 'close',
		matches: (input, key) => isEscape(input, key) || input === 'q',
	},
	// In a confirm box they scroll its text when it is taller than the screen (never the cursor: the target is set).
	{
		action: 'up',
		modes: ['main', 'analysis', 'detail', 'help', 'nodes', 'confirm'],
		keys: '↑  k',
		description: 'move up; in a box: scroll',
		matches: (input, key) => key.upArrow === true || input === 'k',
	},
	{
		action: 'down',
		modes: ['main', 'analysis', 'detail', 'help', 'nodes', 'confirm'],
		keys: '↓  j',
		description: 'move down; in a box: scroll',
		bar: {main: 'move', analysis: 'scroll', detail: 'scroll', help: 'scroll', nodes: 'move'},
		barKey: '↑↓',
		matches: (input, key) => key.downArrow === true || input === 'j',
	},
	{
		action: 'page-up',
		modes: ['main', 'analysis', 'detail', 'help', 'nodes', 'confirm'],
		keys: 'PgUp',
		description: 'page up',
		matches: (_, key) => key.pageUp === true,
	},
	{
		action: 'page-down',
		modes: ['main', 'analysis', 'detail', 'help', 'nodes', 'confirm'],
		keys: 'PgDn',
		description: 'page down',
		matches: (_, key) => key.pageDown === true,
	},
	{
		action: 'analyze',
		modes: ['main'],
		keys: 'a',
		description: "analysis of this run's memory log",
		bar: 'analyze',
		matches: is('a'),
	},
	{action: 'help', modes: ['main', 'nodes'], keys: '?', description: 'this help', bar: 'help', matches: is('?', 'h')},
	{
		action: 'order-nodes',
		modes: ['nodes'],
		keys: 'o',
		description: 'order the nodes: as listed (--hosts, cluster.yaml) or worst first, in turn',
		bar: 'order',
		fleet: true,
		matches: is('o'),
	},
	{
		action: 'sort',
		modes: ['main'],
		keys: 'o',
		description: 'order the ranks within each job: by rank, RSS, CPU, GPU memory (largest first), in turn',
		matches: is('o'),
	},
	{
		action: 'window',
		modes: ['main'],
		keys: 'w',
		description: 'history charts over the last 5 minutes, the last hour, the whole run, in turn',
		matches: is('w'),
	},
	// After help on the bar (it drops from the end when narrow). Not a signal action: --readonly keeps it, since it only reads /proc.
	{
		action: 'detail',
		modes: ['main'],
		keys: 'Enter',
		description:
			'the detail of the rank under the cursor: its whole command line, cwd, launch variables, signals, workers, events',
		bar: 'detail',
		matches: (_, key) => key.return === true,
	},
	// Read-only as Enter's detail (/proc, and py-spy --nonblocking, which never pauses a process): --readonly keeps it.
	{
		action: 'where',
		modes: ['detail'],
		keys: 'w',
		description:
			"in a rank's detail: where it and its DataLoader workers are: each thread's state, wait channel and CPU, its Python frames when py-spy is on PATH",
		bar: 'where',
		matches: is('w'),
	},
	// Not ↑↓: they move the rank cursor. The newest CRIT stays on the pane's first line however far it is scrolled.
	{
		action: 'alerts-older',
		modes: ['main', 'nodes'],
		keys: '[',
		description: 'scroll the alerts pane to older entries (the newest CRIT stays on its first line)',
		bar: 'alerts',
		barKey: '[]',
		matches: is('['),
	},
	{
		action: 'alerts-newer',
		modes: ['main', 'nodes'],
		keys: ']',
		description: 'scroll the alerts pane back to newer entries',
		matches: is(']'),
	},
	{
		action: 'close',
		modes: ['result', 'help'],
		keys: 'Enter',
		description: 'in help or a result: close the box',
		matches: (_, key) => key.return === true,
	},
	{
		action: 'activate',
		modes: ['confirm'],
		keys: 'Enter',
		description: 'in a confirm: press the highlighted button (Cancel first)',
		bar: 'press highlighted',
		matches: (_, key) => key.return === true,
	},
	{
		action: 'choose-next',
		modes: ['confirm'],
		keys: '←  →  Tab',
		description: 'in a confirm: move between Cancel and Send',
		bar: 'choose',
		barKey: '←→',
		matches: (_, key) => key.leftArrow === true || key.rightArrow === true || key.tab === true,
	},
	{action: 'confirm', modes: ['confirm'], keys: 'y', description: 'in a confirm: send', bar: 'send', matches: is('y')},
	// The same key and words as Esc in the other boxes (help lists it once); last on a confirm's bar.
	{action: 'close', modes: ['confirm'], keys: 'Esc', description: CLOSE_DESCRIPTION, bar: 'cancel', matches: isEscape},
	// Ctrl-C in a confirm cancels it rather than quitting: a user mashing Ctrl-C must not lose the app mid-decision.
	{
		action: 'close',
		modes: ['confirm'],
		keys: 'Ctrl-C',
		description: 'in a confirm: cancel',
		matches: (input, key) => key.ctrl === true && input === 'c',
	},
];

/**
 * The action for a key press in a mode, or null. Signal actions do nothing with --readonly; the many-node screen's
 * keys only work under it (`fleet`).
 */
export function resolveKey(
	input: string,
	key: KeyInfo,
	mode: KeyMode,
	readonly: boolean,
	fleet = false,
): Action | null {
	for (const binding of KEYMAP) {
		if (!binding.modes.includes(mode)) continue;
		if (readonly && binding.acts) continue;
		if (binding.fleet && !fleet) continue;
		if (binding.matches(input, key)) return binding.action;
	}
	return null;
}

/**
 * The help overlay's rows, without what --readonly removes (and the many-node screen's keys, outside it): one row
 * per key, its meanings in the different modes joined with `; ` (Enter opens a rank's detail, closes a box and
 * presses a confirm's button), a meaning already listed under other keys (Esc's in a confirm) not again.
 */
export function helpEntries(readonly: boolean, fleet = false): {keys: string; description: string}[] {
	const described = new Set<string>();
	const byKeys = new Map<string, string[]>();
	for (const binding of KEYMAP) {
		if (readonly && binding.acts) continue;
		if (binding.fleet && !fleet) continue;
		if (described.has(binding.description)) continue;
		described.add(binding.description);
		byKeys.set(binding.keys, [...(byKeys.get(binding.keys) ?? []), binding.description]);
	}
	return [...byKeys].map(([keys, descriptions]) => ({keys, description: descriptions.join('; ')}));
}

function barLabel(binding: Binding, mode: KeyMode): string | undefined {
	if (!binding.modes.includes(mode)) return undefined;
	return typeof binding.bar === 'string' ? binding.bar : binding.bar?.[mode];
}

/** A mode's key-bar hints, most important first (the bar drops from the end when narrow). */
export function barHints(mode: KeyMode, readonly: boolean, fleet = false): {key: string; label: string}[] {
	const hints: {key: string; label: string}[] = [];
	for (const binding of KEYMAP) {
		const label = barLabel(binding, mode);
		if (label === undefined || (readonly && binding.acts) || (binding.fleet && !fleet)) continue;
		hints.push({key: binding.barKey ?? binding.keys.split('  ')[0]!, label});
	}
	return hints;
}
