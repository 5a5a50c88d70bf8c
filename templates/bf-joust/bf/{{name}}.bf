A BF Joust program for the referee: two programs share a tape of ten to
thirty cells, each starting on its own flag at its own end; a flag starts
at one hundred and twenty eight and a program loses once its flag has
been zero at two checks in a row, or when it steps off the tape

Only the characters of the program count, so these words are comments:
they hold none of them and no digit

Two decoys behind the front, so that a rusher spends time on them
>(+)*16>(-)*16

Walk to the nearest cell the enemy flag can be on
(>)*7

Clear each cell and step on, until the flag is ours
([-]>)*21
