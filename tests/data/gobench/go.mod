module example.com/gobench

go 1.19
