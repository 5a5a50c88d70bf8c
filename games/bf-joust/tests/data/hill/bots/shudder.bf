a shudder on its own flag: plus and minus alternate for ever
((+-)*50(.)*3)*-1
