import type {Writable} from 'node:stream';
import {UsageError} from '../core/errors.js';
import {bashScript} from './completion-bash.js';
import {completionModel} from './completion-model.js';
import {zshScript} from './completion-zsh.js';

// `traintop completion bash|zsh`: a script that completes commands and flags. Everything it offers comes from the
// command and option tables (cli/commands.ts, config/options.ts), so a new flag is completed without a second list.

function completionScript(shell: string | undefined): string {
	if (shell === 'bash') return bashScript(completionModel());
	if (shell === 'zsh') return zshScript(completionModel());
	const got = shell === undefined ? '' : ` ${shell}`;
	throw new UsageError(`completion${got}: name the shell, bash or zsh (e.g. source <(traintop completion bash))`);
}

export function runCompletionCommand(args: readonly string[], stdout: Writable): number {
	if (args.length > 1) throw new UsageError(`completion takes one shell, bash or zsh (got ${args.join(' ')})`);
	stdout.write(completionScript(args[0]));
	return 0;
}
