rusher: skip nine cells then clear every cell on the way
(>)*9
([-]>)%21
