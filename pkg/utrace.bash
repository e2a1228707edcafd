# bash completion for utrace (installed as share/bash-completion/completions/utrace).
# The commands and each command's options are read from utrace's own help, so the
# completion knows what the installed utrace knows; tracers, events and functions
# come from the mounted utracefs (utrace list).
# The commands: the lines under "commands:" in `utrace --help`.
_utrace_cmds()
{
	"$1" --help 2>/dev/null |
		awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }'
}

_utrace()
{
	local cur prev words cword cmd opts
	_init_completion 2>/dev/null || {
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD - 1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	}
	if [ "$cword" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$(_utrace_cmds "$1") help" -- "$cur"))
		return
	fi
	cmd=${words[1]}
	case $cmd,$prev in
	help,*)
		[ "$cword" -eq 2 ] && COMPREPLY=($(compgen -W "$(_utrace_cmds "$1")" -- "$cur"))
		return ;;
	record,-p) COMPREPLY=($(compgen -W "$("$1" list -t 2>/dev/null)" -- "$cur")); return ;;
	record,-e) COMPREPLY=($(compgen -W "$("$1" list -e 2>/dev/null)" -- "$cur")); return ;;
	record,-[gln] | profile,-l) COMPREPLY=($(compgen -W "$("$1" list -f "$cur*" 2>/dev/null)" -- "$cur")); return ;;
	record,-N) COMPREPLY=($(compgen -A hostname -- "$cur")); return ;;
	record,-o | extract,-o | report,-i | report,--chrome | report,--folded | report,--summary | mount,*)
		COMPREPLY=($(compgen -f -- "$cur")); return ;;
	esac
	if [ "$cmd" = record ] && [[ " ${words[*]:2:cword-2} " == *" -- "* ]]; then
		COMPREPLY=($(compgen -c -- "$cur")) # the traced command
		return
	fi
	if [[ $cur == -* ]]; then
		# every option that starts an option line of the command's help
		opts=$("$1" help "$cmd" 2>/dev/null | sed -n 's/^  \(-[-a-zA-Z]*\).*/\1/p')
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	[ "$cmd" = record ] && COMPREPLY=($(compgen -c -- "$cur"))
	[ "$cmd" = report ] && COMPREPLY=($(compgen -f -- "$cur")) # the recording
}
complete -F _utrace utrace
