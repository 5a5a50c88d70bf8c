a loop enclosing a whole brace part
(>+[{(-)*3}]>)%4
(>)*4([-]>)%-1
