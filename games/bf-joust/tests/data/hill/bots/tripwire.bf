sets a tripwire and waits on it, then attacks
>(+)*40>(-)*40>+[.+]
(>)*6([-]>)*22
