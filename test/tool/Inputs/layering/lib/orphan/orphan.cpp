// a library directory the table does not list
