counts read the hill way: digits after a space are a comment, and a
group without a count or with a bare minus sign is dropped
( > ) * 1 0
(+)(<)*-
(>)%8 (-)*128 ,,, %% 77
