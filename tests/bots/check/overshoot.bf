Assumes a tape of more than twelve cells: on a short tape it walks off
(>)*12[-]
