import type {CompletionModel} from './completion-model.js';

// The bash completion function, written from the completion model. One function, _traintop: it finds the command
// among the words before the cursor (skipping flags and their values), then offers that command's flags, its
// first-argument words, or paths. `--flag=value` arrives split at `=` (COMP_WORDBREAKS) and is handled as two words.

const words = (list: readonly string[]): string => list.join(' ');
const alternatives = (list: readonly string[]): string => list.join('|');

/** A case arm per command for `$cur == -*`: its own flags. */
function flagArms(model: CompletionModel): string[] {
	return model.commands.map(c => `\t\t\t${c.name}) reply=(${words(c.flags)}) ;;`);
}

/**
 * A case arm per command for its arguments: its first-argument words, then paths while it takes more. A command
 * takes one argument (a RUN_DIR), two after a first word (signal save RUN_DIR); --analyze any number of files.
 */
function argumentArms(model: CompletionModel): string[] {
	return model.commands.map(c => {
		const first = c.args.first ?? [];
		const paths = {dirs: '_traintop_paths -d', files: '_traintop_paths -f', none: null}[c.args.paths];
		const more =
			paths === null ? null : c.args.paths === 'files' ? paths : `((args < ${first.length > 0 ? 2 : 1})) && ${paths}`;
		if (first.length === 0) return `\t\t${c.name})${more === null ? '' : ` ${more}`} ;;`;
		const firstWords = `((args == 0)) && reply=(${words(first)})`;
		return `\t\t${c.name}) ${firstWords}${more === null ? '' : ` || { ${more}; }`} ;;`;
	});
}

export function bashScript(model: CompletionModel): string {
	const valueFlags = [...model.fileFlags, ...model.valueFlags];
	return `# traintop completion for bash, written by \`traintop completion bash\` from its option table.
# Load it from ~/.bashrc:  source <(traintop completion bash)
# or save it as ~/.local/share/bash-completion/completions/traintop

# Paths for the word being completed: -d directories, -f files (and directories).
_traintop_paths() {
	compopt -o filenames 2>/dev/null
	local IFS=$'\\n'
	COMPREPLY+=($(compgen "$1" -- "$cur"))
}

_traintop() {
	local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]}
	# --flag=value: bash splits it at '=' into --flag, =, value.
	if [[ $cur == = ]]; then
		cur=
	elif [[ $prev == = ]]; then
		prev=\${COMP_WORDS[COMP_CWORD-2]}
	fi
	COMPREPLY=()
	case $prev in
		${alternatives(model.fileFlags)}) _traintop_paths -f; return 0 ;;
		${alternatives(model.valueFlags)}) return 0 ;;
	esac
	# The command: the first word that is neither a flag nor a flag's value. A word that is no command is the
	# monitor's RUN_DIR. args counts the arguments after the command.
	local cmd= args=0 i w
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=\${COMP_WORDS[i]}
		case $w in
			--analyze) cmd=analyze ;;
			${alternatives(valueFlags)})
				[[ \${COMP_WORDS[i+1]} == = ]] && ((i++))
				((i++)) ;;
			-*) ;;
			*)
				if [[ -n $cmd ]]; then ((args++))
				else case $w in
					${alternatives(model.words)}) cmd=$w ;;
					*) cmd=monitor; args=1 ;;
				esac; fi ;;
		esac
	done
	local reply=()
	if [[ $cur == -* ]]; then
		case $cmd in
${flagArms(model).join('\n')}
			*) reply=(${words(model.allFlags)}) ;;
		esac
		COMPREPLY=($(compgen -W "\${reply[*]}" -- "$cur"))
		return 0
	fi
	case $cmd in
		'') reply=(${words(model.words)}); _traintop_paths -d ;;
${argumentArms(model).join('\n')}
	esac
	COMPREPLY+=($(compgen -W "\${reply[*]}" -- "$cur"))
	return 0
}

complete -F _traintop traintop
`;
}
