two groups sharing their brace parts: the outer one's brace opens
inside the inner one's
((>(-)*3{{[+]>}}<.)%2>)%3
(>[(-)*2[+]])*-1
