decoys of both signs then a rush with a two sided clear
>(+)*20>(-)*20
(>)*7
([(+)*6[-]]>)*-1
