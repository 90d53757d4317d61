-- 60 nested functions, each with locals, returns and a tail call.
local function f0(x)
  local v1 = x + 1
  local function f1(x)
    local v2 = x + 2
    local function f2(x)
      local v3 = x + 3
      local function f3(x)
        local v4 = x + 4
        local function f4(x)
          local v5 = x + 5
          local function f5(x)
            local v6 = x + 6
            local function f6(x)
              local v7 = x + 7
              local function f7(x)
                local v8 = x + 8
                local function f8(x)
                  local v9 = x + 9
                  local function f9(x)
                    local v10 = x + 10
                    local function f10(x)
                      local v11 = x + 11
                      local function f11(x)
                        local v12 = x + 12
                        local function f12(x)
                          local v13 = x + 13
                          local function f13(x)
                            local v14 = x + 14
                            local function f14(x)
                              local v15 = x + 15
                              local function f15(x)
                                local v16 = x + 16
                                local function f16(x)
                                  local v17 = x + 17
                                  local function f17(x)
                                    local v18 = x + 18
                                    local function f18(x)
                                      local v19 = x + 19
                                      local function f19(x)
                                        local v20 = x + 20
                                        local function f20(x)
                                          local v21 = x + 21
                                          local function f21(x)
                                            local v22 = x + 22
                                            local function f22(x)
                                              local v23 = x + 23
                                              local function f23(x)
                                                local v24 = x + 24
                                                local function f24(x)
                                                  local v25 = x + 25
                                                  local function f25(x)
                                                    local v26 = x + 26
                                                    local function f26(x)
                                                      local v27 = x + 27
                                                      local function f27(x)
                                                        local v28 = x + 28
                                                        local function f28(x)
                                                          local v29 = x + 29
                                                          local function f29(x)
                                                            local v30 = x + 30
                                                            local function f30(x)
                                                              local v31 = x + 31
                                                              local function f31(x)
                                                                local v32 = x + 32
                                                                local function f32(x)
                                                                  local v33 = x + 33
                                                                  local function f33(x)
                                                                    local v34 = x + 34
                                                                    local function f34(x)
                                                                      local v35 = x + 35
                                                                      local function f35(x)
                                                                        local v36 = x + 36
                                                                        local function f36(x)
                                                                          local v37 = x + 37
                                                                          local function f37(x)
                                                                            local v38 = x + 38
                                                                            local function f38(x)
                                                                              local v39 = x + 39
                                                                              local function f39(x)
                                                                                local v40 = x + 40
                                                                                local function f40(x)
                                                                                  local v41 = x + 41
                                                                                  local function f41(x)
                                                                                    local v42 = x + 42
                                                                                    local function f42(x)
                                                                                      local v43 = x + 43
                                                                                      local function f43(x)
                                                                                        local v44 = x + 44
                                                                                        local function f44(x)
                                                                                          local v45 = x + 45
                                                                                          local function f45(x)
                                                                                            local v46 = x + 46
                                                                                            local function f46(x)
                                                                                              local v47 = x + 47
                                                                                              local function f47(x)
                                                                                                local v48 = x + 48
                                                                                                local function f48(x)
                                                                                                  local v49 = x + 49
                                                                                                  local function f49(x)
                                                                                                    local v50 = x + 50
                                                                                                    local function f50(x)
                                                                                                      local v51 = x + 51
                                                                                                      local function f51(x)
                                                                                                        local v52 = x + 52
                                                                                                        local function f52(x)
                                                                                                          local v53 = x + 53
                                                                                                          local function f53(x)
                                                                                                            local v54 = x + 54
                                                                                                            local function f54(x)
                                                                                                              local v55 = x + 55
                                                                                                              local function f55(x)
                                                                                                                local v56 = x + 56
                                                                                                                local function f56(x)
                                                                                                                  local v57 = x + 57
                                                                                                                  local function f57(x)
                                                                                                                    local v58 = x + 58
                                                                                                                    local function f58(x)
                                                                                                                      local v59 = x + 59
                                                                                                                      local function f59(x)
                                                                                                                        local v60 = x + 60
                                                                                                                        local function f60(x)
                                                                                                                          if x < 0 then error("negative at depth 60") end
                                                                                                                          return x + v1 + v60
                                                                                                                        end
                                                                                                                        return f60(x)
                                                                                                                      end
                                                                                                                      return f59(x)
                                                                                                                    end
                                                                                                                    return f58(x)
                                                                                                                  end
                                                                                                                  return f57(x)
                                                                                                                end
                                                                                                                return f56(x)
                                                                                                              end
                                                                                                              return f55(x)
                                                                                                            end
                                                                                                            return f54(x)
                                                                                                          end
                                                                                                          return f53(x)
                                                                                                        end
                                                                                                        return f52(x)
                                                                                                      end
                                                                                                      return f51(x)
                                                                                                    end
                                                                                                    return f50(x)
                                                                                                  end
                                                                                                  return f49(x)
                                                                                                end
                                                                                                return f48(x)
                                                                                              end
                                                                                              return f47(x)
                                                                                            end
                                                                                            return f46(x)
                                                                                          end
                                                                                          return f45(x)
                                                                                        end
                                                                                        return f44(x)
                                                                                      end
                                                                                      return f43(x)
                                                                                    end
                                                                                    return f42(x)
                                                                                  end
                                                                                  return f41(x)
                                                                                end
                                                                                return f40(x)
                                                                              end
                                                                              return f39(x)
                                                                            end
                                                                            return f38(x)
                                                                          end
                                                                          return f37(x)
                                                                        end
                                                                        return f36(x)
                                                                      end
                                                                      return f35(x)
                                                                    end
                                                                    return f34(x)
                                                                  end
                                                                  return f33(x)
                                                                end
                                                                return f32(x)
                                                              end
                                                              return f31(x)
                                                            end
                                                            return f30(x)
                                                          end
                                                          return f29(x)
                                                        end
                                                        return f28(x)
                                                      end
                                                      return f27(x)
                                                    end
                                                    return f26(x)
                                                  end
                                                  return f25(x)
                                                end
                                                return f24(x)
                                              end
                                              return f23(x)
                                            end
                                            return f22(x)
                                          end
                                          return f21(x)
                                        end
                                        return f20(x)
                                      end
                                      return f19(x)
                                    end
                                    return f18(x)
                                  end
                                  return f17(x)
                                end
                                return f16(x)
                              end
                              return f15(x)
                            end
                            return f14(x)
                          end
                          return f13(x)
                        end
                        return f12(x)
                      end
                      return f11(x)
                    end
                    return f10(x)
                  end
                  return f9(x)
                end
                return f8(x)
              end
              return f7(x)
            end
            return f6(x)
          end
          return f5(x)
        end
        return f4(x)
      end
      return f3(x)
    end
    return f2(x)
  end
  return f1(x)
end
print(f0(1), pcall(f0, -100))
f0(-100)
