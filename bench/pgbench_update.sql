\set id random(1, 1000)
UPDATE bench_counter SET n = n + 1 WHERE id = :id;
