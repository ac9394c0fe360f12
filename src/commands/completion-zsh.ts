import type {CompletionModel} from './completion-model.js';

// The zsh completion function, written from the completion model: the same walk as bash's (the command is the
// first word that is neither a flag nor a flag's value), with zsh's compadd and _files. It works both as a file on
// $fpath (autoloaded as _traintop: the body runs the function) and sourced (it registers itself with compdef).

const words = (list: readonly string[]): string => list.join(' ');
const alternatives = (list: readonly string[]): string => list.join('|');

function flagArms(model: CompletionModel): string[] {
	return model.commands.map(c => `\t\t\t(${c.name}) compadd -- ${words(c.flags)} ;;`);
}

/** As bash's: first-argument words, then paths while the command takes more (completion-bash.ts). */
function argumentArms(model: CompletionModel): string[] {
	return model.commands.map(c => {
		const first = c.args.first ?? [];
		const paths = {dirs: '_files -/', files: '_files', none: null}[c.args.paths];
		const more =
			paths === null ? null : c.args.paths === 'files' ? paths : `(( args < ${first.length > 0 ? 2 : 1} )) && ${paths}`;
		if (first.length === 0) return `\t\t(${c.name})${more === null ? '' : ` ${more}`} ;;`;
		const firstWords = `compadd -- ${words(first)}`;
		return more === null
			? `\t\t(${c.name}) (( args == 0 )) && ${firstWords} ;;`
			: `\t\t(${c.name}) if (( args == 0 )); then ${firstWords}; else ${more}; fi ;;`;
	});
}

export function zshScript(model: CompletionModel): string {
	const valueFlags = [...model.fileFlags, ...model.valueFlags];
	return `#compdef traintop
# traintop completion for zsh, written by \`traintop completion zsh\` from its option table.
# Save it on your $fpath before compinit runs:  traintop completion zsh > ~/.zfunc/_traintop
# (with fpath=(~/.zfunc $fpath) in ~/.zshrc), or load it after compinit:  source <(traintop completion zsh)

_traintop() {
	local cur=\${words[CURRENT]} prev=\${words[CURRENT-1]} cmd= w
	integer args=0 i
	if [[ $cur == --*=* ]]; then
		case \${cur%%=*} in
			(${alternatives(model.fileFlags)}) compset -P '*='; _files ;;
		esac
		return
	fi
	case $prev in
		(${alternatives(model.fileFlags)}) _files; return ;;
		(${alternatives(model.valueFlags)}) return ;;
	esac
	for (( i = 2; i < CURRENT; i++ )); do
		w=\${words[i]}
		case $w in
			(--analyze) cmd=analyze ;;
			(${alternatives(valueFlags)}) (( i++ )) ;;
			(-*) ;;
			(*)
				if [[ -n $cmd ]]; then (( args++ ))
				else case $w in
					(${alternatives(model.words)}) cmd=$w ;;
					(*) cmd=monitor; args=1 ;;
				esac; fi ;;
		esac
	done
	if [[ $cur == -* ]]; then
		case $cmd in
${flagArms(model).join('\n')}
			(*) compadd -- ${words(model.allFlags)} ;;
		esac
		return
	fi
	case $cmd in
		('') compadd -- ${words(model.words)}; _files -/ ;;
${argumentArms(model).join('\n')}
	esac
}

if [[ \${funcstack[1]} == _traintop ]]; then
	_traintop "$@"
else
	compdef _traintop traintop
fi
`;
}
