"""Kits shared by the test tiers: fixtures' helpers, fakes of the pure core, builders."""
