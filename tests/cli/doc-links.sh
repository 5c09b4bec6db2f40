#!/bin/bash
# Every relative link of README.md, NEWS.md and doc/*.md leads to a file,
# read from the page's own directory as a forge and a reader of
# /usr/share/doc/rdmactl do (a page in doc/ links report-64.png, not
# doc/report-64.png); an anchor (#section) of a page the tree holds is
# one of its headings.
. "$(dirname "$0")/lib.sh"

# anchors PAGE: the anchors of PAGE's headings, as Markdown renderers make
# them (lowercase, spaces as -, punctuation but - and _ dropped).
anchors() {
	sed -n 's/^#\{1,6\} //p' "$1" | tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9 _-]//g; s/ /-/g'
}

for page in "$TOP"/README.md "$TOP"/NEWS.md "$TOP"/doc/*.md; do
	name=${page#"$TOP"/}
	bad=""
	while read -r link; do
		target=${link%%#*} anchor=""
		[[ $link == *#* ]] && anchor=${link#*#}
		file=$(dirname "$page")/$target
		[ -z "$target" ] && file=$page
		if [ ! -e "$file" ]; then
			bad+=" $link"
		elif [ -n "$anchor" ] && [[ $file == *.md ]] && ! anchors "$file" | grep -qxF -- "$anchor"; then
			bad+=" $link"
		fi
	done < <(grep -oE '\]\([^):]+\)' "$page" | sed 's/^](//; s/)$//; s/ .*//' | sort -u)
	OUT=$bad ERR='' RC=0
	check "links-$name" [ -z "$bad" ]
done
finish
