Clears the enemy flag but has one bracket too many on the last line
(>)*9
  [-]]
