def test_probe():
    assert 1
